"""The documentation site (`make docs`): browsable, searchable bilingual HTML built from the specs."""

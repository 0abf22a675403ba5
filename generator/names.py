"""Names a spec may not give its inputs, outputs and attributes, because the generated Python or C
would then use one name for two things. Spec names become kernel parameters (attributes are the
keyword API), so they are checked here rather than silently renamed.

Three sources of clashes:
- names the generated code itself uses next to spec names (module globals, locals, builtins,
  C runtime identifiers, C and libm names);
- names the generators derive from a spec name (`X` -> `X_`, `X_shape`, `X_rank`, `X_dtype`,
  `X_out`, `X_len`, `X_v`, `has_X`): two spec names must not meet through them;
- op names that map to one file (`And` and `and_` both give `and_.py`) or to a package file.
"""
from __future__ import annotations

from collections.abc import Collection


# Python: the names a generated kernel or validator reads besides its parameters (module globals
# and builtins: measured over every generated module), and the locals it assigns. A spec name that
# is one of these would shadow it inside the function. (Other builtins, such as `input` or `max`,
# are never read there, so specs may use them.)
PY_RESERVED = frozenset({
    "np", "_ew", "_kernels", "_validate", "ValidationError", "float", "tuple", "None",
    "compute", "result", "problems", "variadic", "requested_outputs",
})
PY_RESERVED_PREFIXES = ("SIGNATURE_V", "validate_v", "kernel_v")

# C: the locals of the generated typed kernels (templates/c/op.c.j2), the standard types and
# macros they use, and the <math.h> functions formulas call (a parameter `expf` would hide it).
C_GENERATED = frozenset({"i", "d", "it", "status", "shapes", "ranks", "aligned", "aligned_status", "low", "high",
                         "fold_shape", "fold_rank", "fold_total", "fold_acc", "fold_start", "fold_len", "fold_k",
                         "fold_x", "acc_v"})
C_STANDARD = frozenset("""
int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t ptrdiff_t intptr_t uintptr_t
bool true false NULL INFINITY NAN HUGE_VAL errno assert offsetof
_Bool _Complex _Imaginary _Alignas _Alignof _Atomic _Generic _Noreturn _Static_assert _Thread_local
fabs fabsf sqrt sqrtf cbrt cbrtf exp expf expm1 expm1f log logf log1p log1pf pow powf sin sinf cos cosf tan tanf
asin asinf acos acosf atan atanf atan2 atan2f sinh sinhf cosh coshf tanh tanhf asinh asinhf acosh acoshf
atanh atanhf floor floorf ceil ceilf round roundf rint rintf trunc truncf fmod fmodf fmax fmaxf fmin fminf
erf erff erfc erfcf isfinite isnan isinf signbit copysign copysignf memcpy memset
""".split())
C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void
volatile while""".split())
C_RESERVED = C_GENERATED | C_STANDARD | C_KEYWORDS

# Suffixes and prefixes the generators add to a spec name (Python renames, C parameters and fields).
DERIVED_SUFFIXES = ("_", "_shape", "_rank", "_dtype", "_out", "_len", "_v", "_count", "_attr")
DERIVED_PREFIXES = ("has_",)

# An attribute with the name of an input (ONNX Split-1's `split`, an attribute and an optional input):
# kernels take inputs positionally and attributes as keywords, and a Python function cannot have two
# parameters of one name, so such an attribute's keyword (and its name in checks and shapes) is the
# name with this suffix (`split_attr`); the plain name stays the input's. The suffix is reserved
# (DERIVED_SUFFIXES), so no spec name can meet it.
ATTRIBUTE_CLASH_SUFFIX = "_attr"


def attribute_keyword(name: str, input_names: Collection[str]) -> str:
    """The keyword a kernel takes attribute `name` by (and the name checks read it by): its own name,
    or `<name>_attr` where an input has that name."""
    return name + ATTRIBUTE_CLASH_SUFFIX if name in input_names else name


# Macros and type names: they break even a struct field of the attribute struct every header declares.
C_MACROS = frozenset("""int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t ptrdiff_t intptr_t
uintptr_t bool true false NULL INFINITY NAN HUGE_VAL errno assert offsetof""".split())
# Names the C renderer spells with a trailing "_" (c_code.c_name): C keywords, and the C library's functions,
# which a parameter of the same name would hide from the kernel's body (ONNX Mod's attribute `fmod`). C
# parameters are positional, so the spelling is no API; a spec name ending in "_" beside them is refused
# (DERIVED_SUFFIXES).
C_RENAMED = C_KEYWORDS | (C_STANDARD - C_MACROS)


def name_problems(names: list[str], kernel: bool = True, c_kernel: bool = True,
                  derived: dict[str, tuple[str, ...]] | None = None) -> dict[str, str]:
    """Problems of a version's parameter and attribute names, by name (empty when none clash).

    Without a kernel (`kernel`), spec names appear only in the validator's data and the C attribute
    struct, so only names that break those count; without a C kernel (`c_kernel`, an element-wise
    formula), C locals cannot be shadowed and are allowed (RandomUniform's `low` and `high`). C keywords and
    C library functions are allowed either way: the C renderer spells them with a trailing "_" (C_RENAMED).
    `derived`: for a kernel that calls a runtime function (no formula, no typed C), the suffixes the
    generated code really derives from each name (`_dtype` only for an output no input types,
    `_shape` only for one the node gives the shape of); other names derive only `_`."""
    problems: dict[str, str] = {}
    present = set(names)
    c_reserved = C_RESERVED if c_kernel else C_MACROS
    for name in names:
        if name in PY_RESERVED or name.startswith(PY_RESERVED_PREFIXES):  # (keywords are fine: the
            # generators append "_" to them)
            problems[name] = f"{name!r} is a name the generated Python uses itself"
        if name in c_reserved and name not in C_RENAMED:
            problems[name] = f"{name!r} is a name the generated C uses itself (or a C library name)"
        if name.lower().startswith("opgen") or name.startswith("__") or (name.startswith("_") and name[1:2].isupper()):
            problems[name] = f"{name!r} is reserved (opgen's own prefix, or a name C reserves)"
        for suffix in DERIVED_SUFFIXES if kernel else ("_",):
            base = name[: -len(suffix)]
            if derived is not None and suffix not in derived.get(base, ("_",)):
                continue
            if name.endswith(suffix) and base in present:
                problems[name] = (f"{name!r} clashes with the name generated code derives from "
                                  f"{name[: -len(suffix)]!r} ({name[: -len(suffix)]}{suffix})")
        for prefix in DERIVED_PREFIXES:
            if name.startswith(prefix) and name[len(prefix):] in present:
                problems[name] = f"{name!r} clashes with the C field derived from {name[len(prefix):]!r}"
    return problems


RESERVED_MODULES = frozenset({"__init__", "__main__"})

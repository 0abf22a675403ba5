"""The validation memo (runtime/validation.py) answers a signature with its own problems only, even when
signatures are created and freed in a row and CPython reuses their ids (issue 11, item 2)."""
from __future__ import annotations

from opgen.runtime import validation
from opgen.runtime.validation import AttrSig, ParamSig, Signature, validate


def make_signature(k: int) -> Signature:
    """A one-input op whose required attribute is named after k: its problem names op and attribute."""
    return Signature(op=f"demo.Op{k}", version=1, attributes=(AttrSig(f"attr{k}", "int", required=True),),
                     inputs=(ParamSig("X", "T"),), outputs=(ParamSig("Y", "T"),),
                     type_constraints={"T": ("float",)})


def test_freed_signatures_do_not_share_memo_entries():
    # Start from an empty memo: a full one is cleared when it reaches its size, after which freed
    # signatures may give their ids back (correctly, as nothing cached names them any more).
    validation._CACHE.clear()
    seen_ids: set[int] = set()
    reused = 0
    for k in range(2000):
        sig = make_signature(k)
        reused += id(sig) in seen_ids
        seen_ids.add(id(sig))
        problems = validate(sig, [("float", (2, 3))], {})
        assert [str(p) for p in problems] == [f"demo.Op{k}@1: attribute 'attr{k}': is required but was not given"]
        del sig, problems  # reference counting frees it here (no cycle), so CPython may reuse its id
    # The memo keeps each cached signature alive, so no id comes back while it is cached; the test
    # still covers the old failure, where ids came back at once (reused was ~2000 then).
    assert reused == 0


def test_same_signature_is_answered_from_the_memo():
    sig = make_signature(0)
    first = validate(sig, [("float", (2,))], {"attr0": 1, "bogus": 2})
    again = validate(sig, [("float", (2,))], {"attr0": 1, "bogus": 2})
    assert first == again and [p.where for p in first] == ["attribute 'bogus'"]


def test_answers_that_read_values_are_memoised_by_those_values():
    # Reshape's checks read its shape input's value: the memo must answer each value with its own
    # problems, as a fresh validation (the memo emptied first) does.
    import numpy as np

    import opgen_ops

    sig = opgen_ops.get_signature("onnx", "Reshape", 14)
    data = np.zeros((2, 6), np.float32)
    shapes = [np.array(s, np.int64) for s in ([3, 4], [5, 5], [3, 4], [-1, 3], [5, 5], [4, -1, -1])]

    def fresh(shape):
        validation._CACHE.clear()
        return [str(p) for p in validate(sig, [data, shape], {})]

    expected = [fresh(s) for s in shapes]
    assert expected[0] == [] and expected[1] != [] and expected[5] != []  # the values do change the answer
    validation._CACHE.clear()
    assert [[str(p) for p in validate(sig, [data, s], {})] for s in shapes] == expected
    # the output shapes the checker infers from the same values: memoised the same way
    def fresh_shapes(shape):
        validation._CACHE.clear()
        return validation.output_shapes_of(sig, [data, shape], {})

    expected_shapes = [fresh_shapes(s) for s in shapes]
    assert expected_shapes[:4] == [{"reshaped": (3, 4)}, {"reshaped": (5, 5)}, {"reshaped": (3, 4)},
                                   {"reshaped": (4, 3)}]
    validation._CACHE.clear()
    assert [validation.output_shapes_of(sig, [data, s], {}) for s in shapes] == expected_shapes


def test_tensor_attributes_are_memoised_by_their_values():
    # a reader's TensorInfo compares by dtype and shape only; the memo key holds its value too
    import numpy as np

    from opgen.runtime.validation import TensorInfo
    from opgen.runtime.validation_memo import _freeze

    one, two = (TensorInfo("int64", (1,), np.array([k], np.int64)) for k in (1, 2))
    assert one == two and _freeze(one) != _freeze(two)

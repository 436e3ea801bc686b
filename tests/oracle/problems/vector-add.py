"""P1: C = A + B in fp32 (PyTorch's own add)."""


def compute(inputs, scalars, sizes):
    return {"C": inputs["A"] + inputs["B"]}

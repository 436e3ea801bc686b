"""P15: C = A @ B, by PyTorch in fp64 from the fp32 inputs (no TF32 anywhere)."""


def compute(inputs, scalars, sizes):
    return {"C": inputs["A"].double() @ inputs["B"].double()}

"""P26: row-wise softmax of long rows, computed by PyTorch in fp64 from the fp32 inputs."""
import torch


def compute(inputs, scalars, sizes):
    return {"Y": torch.softmax(inputs["X"].double(), dim=-1)}

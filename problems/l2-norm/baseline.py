"""PyTorch's Euclidean norm of a vector."""
import torch


def baseline(x, **_):
    return torch.linalg.vector_norm(x, ord=2).reshape(1)

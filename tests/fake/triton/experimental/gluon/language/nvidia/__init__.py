"""triton.experimental.gluon.language.nvidia, faked: hopper only."""
from . import hopper  # noqa: F401

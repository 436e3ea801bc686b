"""triton.language.extra (stand-in): libdevice, also as extra.cuda.libdevice."""
from . import cuda  # noqa: F401
from .cuda import libdevice  # noqa: F401

"""triton.language.extra.cuda (stand-in)."""
from . import libdevice  # noqa: F401

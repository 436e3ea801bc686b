"""triton.experimental, faked: only Gluon (gluon/)."""

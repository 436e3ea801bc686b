from dataclasses import dataclass


@dataclass(frozen=True)
class GPUTarget:
    backend: str
    arch: object
    warp_size: int


class BaseBackend:
    def __init__(self, target):
        self.target = target

    @staticmethod
    def parse_attr(desc):
        assert isinstance(desc, str)
        ret = []
        if "D" in desc:
            ret += [["tt.divisibility", 16]]
        return ret

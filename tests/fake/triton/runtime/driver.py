"""triton.runtime.driver, faked after Triton 3.6: a DriverConfig whose default driver needs
a GPU. There is none here (nor in the judge's compile sandbox), so asking for it fails as
the real CudaDriver does without libcuda; the judge's launcher recorder sets its own active
driver (set_active) with the worker GPU's figures."""


class DriverConfig:
    def __init__(self):
        self._default = None
        self._active = None

    @property
    def default(self):
        raise RuntimeError("0 active drivers ([]). There should only be one. (fake triton: no GPU)")

    @property
    def active(self):
        if self._active is None:
            self._active = self.default
        return self._active

    def set_active(self, driver):
        self._active = driver

    def reset_active(self):
        self._active = None


driver = DriverConfig()

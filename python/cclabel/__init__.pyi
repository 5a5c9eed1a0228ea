"""Type stubs of cclabel (see the docstrings of cclabel.label for the full contract)."""
from typing import Any, Literal, Optional, Sequence, Tuple, Union, overload

__version__: str
built_with_cuda: bool

def cuda_available() -> bool: ...

# An image: a NumPy array, a CuPy array, a PyTorch tensor or any DLPack / buffer-protocol array.
# The labels are an array of the same library (NumPy for other host arrays).
_Array = Any
Background = Union[None, int, Sequence[int], str]
Backend = Literal["auto", "cpu", "cuda"]
Connectivity = Literal[1, 2, 4, 8]
# N: int for one host image; a (B,) uint32 array for a host batch; a 0-d / (B,) uint32 device
# array for GPU images; int or list[int] with num_as_int=True.
Count = Union[int, list[int], _Array]

@overload
def label(image: _Array, *, connectivity: Connectivity = 8, background: Background = None,
          backend: Backend = "auto", return_num: Literal[False] = False, out: Optional[_Array] = None,
          num_as_int: bool = False) -> _Array: ...
@overload
def label(image: _Array, *, connectivity: Connectivity = 8, background: Background = None,
          backend: Backend = "auto", return_num: Literal[True], out: Optional[_Array] = None,
          num_as_int: bool = False) -> Tuple[_Array, Count]: ...
@overload
def connected_components(image: _Array, *, connectivity: Connectivity = 8, background: Background = None,
                         backend: Backend = "auto", return_num: Literal[False] = False,
                         out: Optional[_Array] = None, num_as_int: bool = False) -> _Array: ...
@overload
def connected_components(image: _Array, *, connectivity: Connectivity = 8, background: Background = None,
                         backend: Backend = "auto", return_num: Literal[True], out: Optional[_Array] = None,
                         num_as_int: bool = False) -> Tuple[_Array, Count]: ...

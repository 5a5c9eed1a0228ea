"""Type stubs of cclabel (see the docstrings of cclabel.label for the full contract)."""
from typing import Any, Iterable, Literal, Optional, Sequence, Tuple, Union, overload

__version__: str
built_with_cuda: bool

def cuda_available() -> bool: ...
def free_cached_memory() -> int: ...

# An image: a NumPy array, a CuPy array, a PyTorch tensor or any DLPack / buffer-protocol array, of
# bool, int8..int64, uint8..uint64 or float16..float64 (uint8 also as (H, W, 3|4) RGB/RGBA).
# The labels are an array of the same library (NumPy for other host arrays).
_Array = Any
Background = Union[None, int, float, Sequence[int], str]
Backend = Literal["auto", "cpu", "cuda"]
Connectivity = Literal[1, 2, 4, 8]
# label() also takes a volume's neighbourhood for a (Z, Y, X) array: 6, 18, 26 (scikit-image's 3).
LabelConnectivity = Literal[1, 2, 3, 4, 6, 8, 18, 26]
# uint16, uint32 or uint64, as a NumPy / CuPy / PyTorch dtype or its name.
LabelDtype = Any
# N: int for one host image; a (B,) uint32 array for a host batch; a 0-d / (B,) uint32 device
# array for GPU images; int or list[int] with num_as_int=True.
Count = Union[int, list[int], _Array]
# regions(): columns label, area, left, top, width, height, centroid_x, centroid_y, perimeter,
# value ((N + 1, C), the image's dtype), NumPy or CuPy arrays of N + 1 rows; of a (Z, Y, X)
# volume: label, voxels, left, top, front, width, height, depth, centroid_x, centroid_y,
# centroid_z, surface, value ((N + 1, 1)), NumPy arrays.
Regions = dict[str, _Array]

@overload
def label(image: _Array, *, connectivity: LabelConnectivity = 8, background: Background = None,
          backend: Backend = "auto", return_num: Optional[Literal[False]] = None, out: Optional[_Array] = None,
          num_as_int: bool = False, stats: Literal[False] = False, return_N: Optional[Literal[False]] = None,
          out_dtype: LabelDtype = None, threads: Optional[int] = None, tolerance: int = 0) -> _Array: ...
@overload
def label(image: _Array, *, connectivity: LabelConnectivity = 8, background: Background = None,
          backend: Backend = "auto", return_num: Literal[True], out: Optional[_Array] = None,
          num_as_int: bool = False, stats: Literal[False] = False, return_N: None = None,
          out_dtype: LabelDtype = None, threads: Optional[int] = None, tolerance: int = 0) -> Tuple[_Array, Count]: ...
@overload
def label(image: _Array, *, connectivity: LabelConnectivity = 8, background: Background = None,
          backend: Backend = "auto", return_num: None = None, out: Optional[_Array] = None,
          num_as_int: bool = False, stats: Literal[False] = False, return_N: Literal[True],
          out_dtype: LabelDtype = None, threads: Optional[int] = None, tolerance: int = 0) -> Tuple[_Array, Count]: ...
@overload
def label(image: _Array, *, connectivity: LabelConnectivity = 8, background: Background = None,
          backend: Backend = "auto", return_num: Optional[Literal[False]] = None, out: Optional[_Array] = None,
          num_as_int: bool = False, stats: Literal[True], return_N: Optional[Literal[False]] = None,
          out_dtype: LabelDtype = None, threads: Optional[int] = None, tolerance: int = 0) -> Tuple[_Array, Union[Regions, list[Regions]]]: ...
@overload
def label(image: _Array, *, connectivity: LabelConnectivity = 8, background: Background = None,
          backend: Backend = "auto", return_num: Optional[bool] = None, out: Optional[_Array] = None,
          num_as_int: bool = False, stats: Literal[True], return_N: Optional[bool] = None,
          out_dtype: LabelDtype = None,
          threads: Optional[int] = None, tolerance: int = 0) -> Tuple[_Array, Count, Union[Regions, list[Regions]]]: ...
@overload
def connected_components(image: _Array, *, connectivity: LabelConnectivity = 8, background: Background = None,
                         backend: Backend = "auto", return_num: Optional[Literal[False]] = None,
                         out: Optional[_Array] = None, num_as_int: bool = False, stats: Literal[False] = False,
                         return_N: Optional[Literal[False]] = None, out_dtype: LabelDtype = None,
                         threads: Optional[int] = None, tolerance: int = 0,
                         delta: Optional[int] = None) -> _Array: ...
@overload
def connected_components(image: _Array, *, connectivity: LabelConnectivity = 8, background: Background = None,
                         backend: Backend = "auto", return_num: Literal[True], out: Optional[_Array] = None,
                         num_as_int: bool = False, stats: Literal[False] = False, return_N: None = None,
                         out_dtype: LabelDtype = None, threads: Optional[int] = None, tolerance: int = 0,
                         delta: Optional[int] = None) -> Tuple[_Array, Count]: ...
@overload
def connected_components(image: _Array, *, connectivity: LabelConnectivity = 8, background: Background = None,
                         backend: Backend = "auto", return_num: None = None, out: Optional[_Array] = None,
                         num_as_int: bool = False, stats: Literal[False] = False, return_N: Literal[True],
                         out_dtype: LabelDtype = None, threads: Optional[int] = None, tolerance: int = 0,
                         delta: Optional[int] = None) -> Tuple[_Array, Count]: ...

def regions(labels: _Array, image: _Array, *, connectivity: LabelConnectivity = 8, backend: Backend = "auto",
            threads: Optional[int] = None) -> Regions: ...
@overload
def remove_small(labels: _Array, min_size: int, *, in_place: bool = False, return_num: Literal[False] = False,
                 backend: Backend = "auto", threads: Optional[int] = None) -> _Array: ...
@overload
def remove_small(labels: _Array, min_size: int, *, in_place: bool = False, return_num: Literal[True],
                 backend: Backend = "auto", threads: Optional[int] = None) -> Tuple[_Array, int]: ...
@overload
def keep_largest(labels: _Array, k: int, *, in_place: bool = False, return_num: Literal[False] = False,
                 backend: Backend = "auto", threads: Optional[int] = None) -> _Array: ...
@overload
def keep_largest(labels: _Array, k: int, *, in_place: bool = False, return_num: Literal[True],
                 backend: Backend = "auto", threads: Optional[int] = None) -> Tuple[_Array, int]: ...

from .graph import adjacency as adjacency, label_tolerance as label_tolerance

# label_slabs(): a volume as an iterable of (z, Y, X) host arrays in z order; labels equal label()'s of
# the whole, written into out (a (Z, Y, X) uint32/uint64 array, e.g. a np.memmap) when given.
@overload
def label_slabs(slabs: Iterable[_Array], *, connectivity: Literal[3, 6, 18, 26] = 26, background: Background = None,
                out: Optional[_Array] = None, dtype: LabelDtype = None, return_num: Literal[False] = False,
                threads: Optional[int] = None) -> _Array: ...
@overload
def label_slabs(slabs: Iterable[_Array], *, connectivity: Literal[3, 6, 18, 26] = 26, background: Background = None,
                out: Optional[_Array] = None, dtype: LabelDtype = None, return_num: Literal[True],
                threads: Optional[int] = None) -> Tuple[_Array, int]: ...

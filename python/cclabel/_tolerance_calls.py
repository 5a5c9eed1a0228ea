"""label() with a tolerance where the core has no call of its own: host pictures with ``out=``,
``out_dtype=`` and ``stats=``, and batches that no batched tolerance labeller takes (host batches
of every dtype; GPU batches of signed, 64-bit and float dtypes), labelled image by image into one
result. Each image is labelled exactly as alone; counts and tables are gathered per image."""
from . import _arrays


def is_batch(image):
    """(B, H, W) or (B, H, W, 3|4) uint8, as the core reads a 3-D or 4-D array."""
    shape = tuple(int(s) for s in getattr(image, "shape", ()))
    rgb = _arrays.dtype_name(image) == "uint8"
    if len(shape) == 4:
        return True
    return len(shape) == 3 and not (rgb and shape[2] in (3, 4))


def _empty(lib, shape, target, like):
    if lib == "torch":
        import torch
        return torch.empty(shape, dtype=getattr(torch, target), device=like.device)
    return getattr(_arrays.xp_of(lib), "empty")(shape, dtype=target)


def label_each(image, lib, label, *, out, target, return_num, num_as_int, stats, **kw):
    """A batch labelled image by image by ``label`` (cclabel.label) into one labels array."""
    from . import _check_out
    shape = tuple(int(s) for s in image.shape[:3])
    if out is not None:
        _check_out(out, shape, lib, target)
        labels = out
    else:
        labels = _empty(lib, shape, target, image)
    counts, tables = [], []
    for b in range(shape[0]):
        got = label(image[b], out=labels[b], out_dtype=target, return_num=True, num_as_int=num_as_int,
                    stats=stats, **kw)
        counts.append(got[1])
        if stats:
            tables.append(got[2])
    if lib == "numpy" or num_as_int:
        import numpy as np
        counts = [int(n) for n in counts]
        n = counts if num_as_int else np.array(counts, dtype=np.uint32)
    elif lib == "cupy":
        import cupy
        n = cupy.stack(counts) if counts else cupy.zeros((0,), dtype=cupy.uint32)
    else:
        import torch
        from . import _torch_uint32
        n = torch.stack(counts) if counts else torch.zeros((0,), dtype=_torch_uint32(torch), device=image.device)
    result = (labels, n) if return_num else (labels,)
    if stats:
        result = (*result, tables)
    return result if len(result) > 1 else labels


def label_host(image, lib, tolerance, *, connectivity, background, backend, threads, return_num, out, target,
               stats):
    """One host picture with a tolerance, with out=, out_dtype= and stats= as label() takes them."""
    import numpy as np
    from . import _check_out, _narrow, _torch_uint32, regions
    from .graph import label_tolerance
    labels, n = label_tolerance(image, tolerance, connectivity=connectivity, background=background, backend=backend,
                                threads=threads or 0, return_num=True)
    if out is not None:
        got = _arrays.dtype_name(out)
        if got != target:
            raise TypeError(f"out: dtype must be {target} (or out_dtype's uint16 / uint64), got {got}")
        _check_out(out, labels.shape, lib, target)
    table = regions(labels, np.asarray(image), connectivity=connectivity, backend=backend, threads=threads) \
        if stats else None
    if target != "uint32":
        result = _narrow(labels, n, target, out, "numpy") if lib == "numpy" else None
        if lib == "torch":
            import torch
            wide = torch.from_numpy(labels.astype(np.int64))
            result = wide.to(getattr(torch, target)) if out is None else out.copy_(wide)
        labels = result
    elif lib == "torch":
        import torch
        t = out if out is not None else torch.empty(labels.shape, dtype=_torch_uint32(torch))
        t.view(torch.int32).numpy()[...] = labels.view(np.int32)
        labels = t
    elif out is not None:
        np.copyto(out, labels)
        labels = out
    result = (labels, n) if return_num else (labels,)
    if stats:
        result = (*result, table)
    return result if len(result) > 1 else labels

"""Sinew for Python: skinning methods, their quality metrics and the GPU path
on NumPy arrays (docs/python.md).

    import sinew
    m = sinew.load("character.gltf")
    local = m.sample(0, np.arange(24) / 24.0)      # (frames, joints, 10) local poses
    pal = m.palettes(local, "dqs")                 # (frames, joints, 46) palettes
    pos, nrm = m.skin_reference(pal, "dqs")        # float64 reference, (frames, vertices, 3)
    pos32, nrm32 = sinew.Gpu().skin(m, pal, "dqs") # the Vulkan kernel, float32

Arrays go to C without a copy when they are C-contiguous with the expected
dtype (float64 poses and palettes, uint32 triangles); anything else is
converted once (np.ascontiguousarray). Results are NumPy arrays the C code
writes into directly. Model views (rest_positions, triangles, ...) are
read-only and zero-copy; they keep the model alive.
"""
import atexit
import threading
import weakref

import numpy as np

from ._ffi import ffi, lib

__all__ = ["SinewError", "load", "Model", "Gpu", "devices", "version", "METHODS", "BULGE", "BULGE_INNER",
           "volume", "bone_distances", "jumps", "normal_error", "quality"]

#: Skinning method names, as sinew_method_name prints them (the value is the C enum).
METHODS = {"lbs": 0, "dqs": 1, "dqs-scale": 2, "dqs-scale-local": 3, "dqs-scale-mixed": 4,
           "cor": 5, "cor-scale": 6, "cor-scale-local": 7, "cor-scale-mixed": 8}
#: Skinning flags (sinew_skin_flags).
BULGE = 1
BULGE_INNER = 2
PALETTE_DOUBLES = 46  # sinew_palette_joint
POSE_DOUBLES = 10     # sinew_transform


class SinewError(Exception):
    """A Sinew call failed: result (name, e.g. 'SINEW_ERROR_NOT_RIGID' is 'not rigid'),
    code (the sinew_result value), item (what was at fault: 'vertex', 'clip', ...),
    index and entry (which one; None when none) and the library's message."""

    def __init__(self, code, item=0, index=0xFFFFFFFF, entry=0xFFFFFFFF, message=""):
        self.code = int(code)
        self.result = ffi.string(lib.sinew_result_string(self.code)).decode()
        self.item = ffi.string(lib.sinew_item_kind_name(item)).decode()
        self.index = None if index == 0xFFFFFFFF else int(index)
        self.entry = None if entry == 0xFFFFFFFF else int(entry)
        self.message = message
        where = "" if self.index is None else " (%s %d)" % (self.item, self.index)
        super().__init__("%s%s: %s" % (self.result, where, message) if message else self.result + where)


def _check(r, err=None):
    if r != 0:
        if err is not None and err.result == r:
            raise SinewError(r, err.item, err.index, err.entry, ffi.string(err.message).decode(errors="replace"))
        raise SinewError(r)


def _err():
    return ffi.new("sinew_error_info *")


def _method(m):
    if isinstance(m, str):
        if m not in METHODS:
            raise SinewError(20, 1, message="unknown method %r (one of %s)" % (m, ", ".join(METHODS)))
        return METHODS[m]
    m = int(m)
    if not 0 <= m < len(METHODS):
        raise SinewError(1, 1, message="method %d out of range" % m)
    return m


def _in(a, dtype, shape_tail=None, name="array"):
    """C-contiguous array of dtype (no copy when it already is one)."""
    a = np.ascontiguousarray(a, dtype=dtype)
    if shape_tail is not None and a.shape[-len(shape_tail):] != tuple(shape_tail):
        raise SinewError(1, 1, message="%s has shape %s, expected (..., %s)" % (
            name, a.shape, ", ".join(str(s) for s in shape_tail)))
    return a


def _ptr(a, ctype):
    return ffi.cast(ctype, ffi.from_buffer(a))


class _View:
    """Zero-copy NumPy view of C memory owned by `owner` (kept alive by the view)."""

    def __init__(self, owner, ptr, shape, typestr):
        self.owner = owner
        self.__array_interface__ = {"shape": tuple(shape), "typestr": typestr,
                                    "data": (int(ffi.cast("uintptr_t", ptr)), True), "version": 3}


def _view(owner, ptr, shape, typestr):
    return np.asarray(_View(owner, ptr, shape, typestr))


def version():
    """The library's version, "major.minor.patch"."""
    return ffi.string(lib.sinew_version_string()).decode()


class Clip:
    """One animation clip of a model: index, name, duration in seconds."""

    def __init__(self, index, name, duration):
        self.index, self.name, self.duration = index, name, duration

    def __repr__(self):
        return "Clip(%d, %r, %.3f s)" % (self.index, self.name, self.duration)


class Model:
    """An imported character (sinew.load): skeleton, one packed vertex array for
    all its meshes, triangles, clips and morph targets."""

    def __init__(self, path):
        out = ffi.new("sinew_py_model **")
        err = _err()
        _check(lib.sinew_py_model_load(str(path).encode(), out, err), err)
        self._m = ffi.gc(out[0], lib.sinew_py_model_destroy)
        self._lock = threading.Lock()  # the centers are computed once, by one thread
        self.path = str(path)
        c = ffi.new("uint32_t[7]")
        lib.sinew_py_model_counts(self._m, c)
        (self.vertex_count, self.triangle_count, self.joint_count, self.mesh_count, clip_count,
         self.influences_per_vertex, self.morph_target_count) = [int(x) for x in c]
        self.size = float(lib.sinew_py_model_size(self._m))
        d = ffi.new("double *")
        self.clips = []
        for i in range(clip_count):
            name = ffi.string(lib.sinew_py_clip(self._m, i, d)).decode(errors="replace")
            self.clips.append(Clip(i, name, float(d[0])))
        parents = np.empty(self.joint_count, np.int32)
        bind = np.empty((self.joint_count, 4, 4))
        lib.sinew_py_skeleton(self._m, _ptr(parents, "int32_t *"), _ptr(bind, "double *"))
        self.joint_parents = parents
        self.bind_matrices = np.ascontiguousarray(bind.transpose(0, 2, 1))  # row-major: [row][col]
        self.joint_names = [ffi.string(lib.sinew_py_joint_name(self._m, j)).decode(errors="replace")
                            for j in range(self.joint_count)]
        k = self.influences_per_vertex
        self.influence_joints = np.empty((self.vertex_count, k), np.uint16)
        self.influence_weights = np.empty((self.vertex_count, k), np.float32)
        lib.sinew_py_influences(self._m, _ptr(self.influence_joints, "uint16_t *"),
                                _ptr(self.influence_weights, "float *"))
        mesh = ffi.new("uint32_t *")
        dw = ffi.new("float *")
        self.morph_targets, defaults = [], []
        for t in range(self.morph_target_count):
            self.morph_targets.append(ffi.string(lib.sinew_py_morph_target(self._m, t, mesh, dw)).decode(errors="replace"))
            defaults.append(dw[0])
        self.morph_default_weights = np.array(defaults, np.float32)

    # zero-copy, read-only views
    @property
    def rest_positions(self):
        """(vertices, 3) float64 rest positions (model space); a read-only view."""
        return _view(self, lib.sinew_py_rest_positions(self._m), (self.vertex_count, 3), "<f8")

    @property
    def rest_normals(self):
        """(vertices, 3) float64 rest normals (unit or zero); a read-only view."""
        return _view(self, lib.sinew_py_rest_normals(self._m), (self.vertex_count, 3), "<f8")

    @property
    def triangles(self):
        """(triangles, 3) uint32 vertex indices; a read-only view."""
        return _view(self, lib.sinew_py_triangles(self._m), (self.triangle_count, 3), "<u4")

    def clip_index(self, clip):
        """A clip given by index or name -> its index (SinewError NOT_FOUND otherwise)."""
        if isinstance(clip, str):
            for c in self.clips:
                if c.name == clip:
                    return c.index
            raise SinewError(20, 13, message="no clip named %r" % clip)
        return int(clip)

    def sample(self, clip, times, wrap="loop"):
        """Local poses of a clip (index or name; None = the bind pose) at times in
        seconds: (len(times), joints, 10) float64 = translation xyz, rotation
        quaternion xyzw, scale xyz per joint. wrap: 'loop' or 'clamp'."""
        times = _in(np.atleast_1d(times), np.float64)
        out = np.empty((times.size, self.joint_count, POSE_DOUBLES))
        err = _err()
        ci = -1 if clip is None else self.clip_index(clip)
        _check(lib.sinew_py_sample(self._m, ci, times.size, _ptr(times, "double *"), 1 if wrap == "clamp" else 0,
                                   _ptr(out, "double *"), err), err)
        return out

    def sample_weights(self, clip, times, wrap="loop"):
        """Morph weights of a clip (index, name, or None) at times in seconds:
        (len(times), morph targets) float32, the file's weights (its weight
        tracks; the default weights where it has none), as Model.morph and
        Gpu.skin(morph_weights=...) take them."""
        times = _in(np.atleast_1d(times), np.float64)
        out = np.empty((times.size, self.morph_target_count), np.float32)
        err = _err()
        ci = -1 if clip is None else self.clip_index(clip)
        _check(lib.sinew_py_sample_weights(self._m, ci, times.size, _ptr(times, "double *"),
                                           1 if wrap == "clamp" else 0, _ptr(out, "float *"), err), err)
        return out

    def bind_pose(self):
        """(joints, 10) local bind pose: skinning it reproduces the rest mesh."""
        return self.sample(None, [0.0])[0]

    def palettes(self, local, method):
        """Palettes of local poses ((joints, 10) or (frames, joints, 10)) for a
        method: (..., joints, 46) float64, the C sinew_palette_joint: skin 4x4
        (column-major), scale 4x4, rigid dual quaternion (8), bone segment head
        and tail (3 + 3). SinewError 'not rigid' for plain DQS/CoR on a pose
        that scales."""
        local = _in(local, np.float64, (self.joint_count, POSE_DOUBLES), "local")
        flat = local.reshape(-1, self.joint_count, POSE_DOUBLES)
        out = np.empty((flat.shape[0], self.joint_count, PALETTE_DOUBLES))
        err = _err()
        _check(lib.sinew_py_palettes(self._m, _method(method), flat.shape[0], _ptr(flat, "double *"),
                                     _ptr(out, "double *"), err), err)
        return out.reshape(local.shape[:-1] + (PALETTE_DOUBLES,))

    def centers(self):
        """(vertices, 3) float32 centers of rotation (computed on first use, as
        the CoR methods do); a read-only view."""
        err = _err()
        with self._lock:
            _check(lib.sinew_py_compute_centers(self._m, err), err)
        return _view(self, lib.sinew_py_centers(self._m), (self.vertex_count, 3), "<f4")

    def _palettes_in(self, palettes):
        p = _in(palettes, np.float64, (self.joint_count, PALETTE_DOUBLES), "palettes")
        return p, p.reshape(-1, self.joint_count, PALETTE_DOUBLES).shape[0]

    def skin_reference(self, palettes, method, flags=0, normals=True, rest=None):
        """Float64 reference skinning (sinew/reference.h) of palettes (one
        (joints, 46) or a batch (frames, joints, 46)): positions and normals
        (None when normals=False), (..., vertices, 3) float64. rest=(positions,
        normals) skins another rest shape (e.g. Model.morph), for 4-influence
        models and methods without centers."""
        p, n = self._palettes_in(palettes)
        shape = p.shape[:-2] + (self.vertex_count, 3)
        pos = np.empty(shape)
        nrm = np.empty(shape) if normals else None
        err = _err()
        m = _method(method)
        nptr = _ptr(nrm, "double *") if normals else ffi.NULL
        if rest is None:
            r = lib.sinew_py_skin_reference(self._m, m, flags, n, _ptr(p, "double *"), _ptr(pos, "double *"), nptr, err)
        else:
            rp = _in(rest[0], np.float64, (3,), "rest positions")
            rn = _in(rest[1], np.float64, (3,), "rest normals")
            if rp.shape != (self.vertex_count, 3) or rn.shape != (self.vertex_count, 3):
                raise SinewError(1, 1, message="rest arrays must be (%d, 3)" % self.vertex_count)
            r = lib.sinew_py_skin_reference_rest(self._m, m, flags, n, _ptr(p, "double *"), _ptr(rp, "double *"),
                                                 _ptr(rn, "double *"), _ptr(pos, "double *"), nptr, err)
        _check(r, err)
        return pos, nrm

    def morph(self, weights):
        """Rest positions and normals (vertices, 3) float64 with morph target
        weights (one per target, over all meshes; the file's default weights
        give the rest mesh), by the float64 morph rule (sinew_morph_reference)."""
        w = _in(weights, np.float32)
        if w.shape != (self.morph_target_count,):
            raise SinewError(1, 1, message="weights must have %d entries" % self.morph_target_count)
        pos = np.empty((self.vertex_count, 3))
        nrm = np.empty((self.vertex_count, 3))
        err = _err()
        _check(lib.sinew_py_morph(self._m, _ptr(w, "float *"), _ptr(pos, "double *"), _ptr(nrm, "double *"), err), err)
        return pos, nrm

    def major_joints(self):
        """(vertices,) uint16: each vertex's major joint (largest weight)."""
        return np.ascontiguousarray(self.influence_joints[:, 0])


def load(path):
    """Imports a model file (glTF, FBX, Collada, X, ... through Sinew's importers)."""
    return Model(path)


def devices():
    """[(name, usable)] of the Vulkan devices, in enumeration order."""
    names = ffi.new("char[%d]" % (256 * 16))
    usable = ffi.new("uint8_t[16]")
    count = ffi.new("uint32_t *")
    _check(lib.sinew_py_list_devices(names, usable, 16, count))
    return [(ffi.string(names + 256 * i).decode(errors="replace"), bool(usable[i])) for i in range(min(count[0], 16))]


class Gpu:
    """A Vulkan device running Sinew's skinning kernel. device: None = the
    SINEW_DEVICE variable or the best device (discrete, integrated, virtual,
    CPU), else an index into devices() or a substring of a device's name."""

    def __init__(self, device=None):
        out = ffi.new("sinew_gpu **")
        err = _err()
        _check(lib.sinew_py_gpu_create(ffi.NULL if device is None else str(device).encode(), out, err), err)
        self._g = ffi.gc(out[0], lib.sinew_py_gpu_destroy)
        self.name = ffi.string(lib.sinew_py_gpu_name(self._g)).decode(errors="replace")
        self._skinners = {}
        self._lock = threading.Lock()  # cffi releases the GIL; a skinner is used by one thread at a time
        _live_gpus.add(self)

    def skin(self, model, palettes, method, flags=0, batch=64, normals=True, morph_weights=None):
        """Skins palettes ((joints, 46) or (frames, joints, 46)) on the device,
        `batch` poses per dispatch: positions and normals (..., vertices, 3)
        float32 (normals None when normals=False). morph_weights: one weight per
        morph target ((targets,) for every pose, or (frames, targets)), applied
        on the GPU before skinning (the defaults give the rest mesh). Calls from
        several threads take turns."""
        with self._lock:
            return self._skin(model, palettes, method, flags, batch, normals, morph_weights)

    def _skin(self, model, palettes, method, flags, batch, normals, morph_weights):
        if self._g is None:
            raise SinewError(1, 1, message="this Gpu was closed")
        p, n = model._palettes_in(palettes)
        m = _method(method)
        w = None
        if morph_weights is not None:
            w = _in(morph_weights, np.float32)
            if w.shape == (model.morph_target_count,):
                w = np.ascontiguousarray(np.broadcast_to(w, (n, model.morph_target_count)))
            if w.shape != (n, model.morph_target_count) or model.morph_target_count == 0:
                raise SinewError(1, 1, message="morph_weights must be (%d,) or (%d, %d)" % (
                    model.morph_target_count, n, model.morph_target_count))
        if lib.sinew_method_uses_centers(m):
            model.centers()
        key = (id(model), batch, bool(lib.sinew_method_uses_centers(m)), w is not None)
        entry = self._skinners.get(key)
        if entry is None or entry[0] is not model:
            out = ffi.new("sinew_py_skinner **")
            err = _err()
            _check(lib.sinew_py_skinner_create(self._g, model._m, batch, 1 if w is not None else 0, out, err), err)
            # the destructor holds the gpu: a skinner is always destroyed before its device
            entry = (model, ffi.gc(out[0], lambda s, g=self._g: lib.sinew_py_skinner_destroy(s)))
            self._skinners[key] = entry
        shape = p.shape[:-2] + (model.vertex_count, 3)
        pos = np.empty(shape, np.float32)
        nrm = np.empty(shape, np.float32) if normals else None
        err = _err()
        r = lib.sinew_py_skinner_run(entry[1], m, flags, n, _ptr(p, "double *"),
                                     _ptr(w, "float *") if w is not None else ffi.NULL, _ptr(pos, "float *"),
                                     _ptr(nrm, "float *") if normals else ffi.NULL, err)
        if r != 0:
            # a failed frame may leave the skinner mid-frame: the next call makes a fresh one
            del self._skinners[key]
            ffi.release(entry[1])
            _check(r, err)
        return pos, nrm

    def close(self):
        """Frees the skinners, then the device, now (also done when collected, and
        at interpreter exit, before the Vulkan driver's own teardown)."""
        with self._lock:
            self._close()

    def _close(self):
        for _, s in self._skinners.values():
            ffi.release(s)
        self._skinners.clear()
        if self._g is not None:
            ffi.release(self._g)
            self._g = None


_live_gpus = weakref.WeakSet()


@atexit.register
def _close_gpus():
    for g in list(_live_gpus):
        g.close()


# ---- quality metrics (sinew/metrics.h) ----

def volume(positions, triangles):
    """Signed volume enclosed by triangles of positions (vertices, 3); a batch
    (frames, vertices, 3) gives one volume per frame."""
    p = _in(positions, np.float64, (3,), "positions")
    t = _in(triangles, np.uint32, (3,), "triangles")
    flat = p.reshape(-1, p.shape[-2], 3)
    out = np.empty(flat.shape[0])
    v = ffi.new("double *")
    err = _err()
    for f in range(flat.shape[0]):
        _check(lib.sinew_metric_volume(flat.shape[1], _ptr(flat[f], "double *"), _ptr(t, "uint32_t *"), t.size, v, err), err)
        out[f] = v[0]
    return out.reshape(p.shape[:-2]) if p.ndim > 2 else float(out[0])


def bone_distances(model, positions, palettes):
    """Distance of each vertex to its major joint's bone segment posed by the
    palette: (..., vertices) for positions (..., vertices, 3) and matching
    palettes (..., joints, 46). With the bind-pose palette: rest distances."""
    p = _in(positions, np.float64, (model.vertex_count, 3), "positions")
    pal, n = model._palettes_in(palettes)
    fp = p.reshape(-1, model.vertex_count, 3)
    fpal = pal.reshape(-1, model.joint_count, PALETTE_DOUBLES)
    if fp.shape[0] != fpal.shape[0]:
        raise SinewError(1, 1, message="%d position frames but %d palettes" % (fp.shape[0], fpal.shape[0]))
    major = model.major_joints()
    out = np.empty((fp.shape[0], model.vertex_count))
    err = _err()
    for f in range(fp.shape[0]):
        _check(lib.sinew_metric_bone_distances(model.vertex_count, _ptr(fp[f], "double *"), _ptr(major, "uint16_t *"),
                                               _ptr(fpal[f], "double *"), model.joint_count,
                                               _ptr(out[f], "double *"), err), err)
    return out.reshape(p.shape[:-1])


def jumps(frames, min_median=0.0):
    """Temporal smoothness of (frames, vertices, 3) positions: (ratio, max_jump),
    ratio = the largest (largest jump / median jump) of a vertex over the
    vertices whose median jump exceeds min_median; max_jump the largest move of
    any vertex between consecutive frames."""
    p = _in(frames, np.float64, (3,), "frames")
    if p.ndim != 3:
        raise SinewError(1, 1, message="frames must be (frames, vertices, 3)")
    scratch = np.empty(max(p.shape[0] - 1, 1))
    r, mj = ffi.new("double *"), ffi.new("double *")
    err = _err()
    _check(lib.sinew_metric_jumps(p.shape[0], p.shape[1], _ptr(p, "double *"), float(min_median),
                                  _ptr(scratch, "double *"), r, mj, err), err)
    return float(r[0]), float(mj[0])


def normal_error(positions, normals, triangles):
    """Per-vertex angle (degrees) between the given normals and the area-weighted
    normals of the triangles around each vertex recomputed from positions
    (vertices, 3); -1 where undefined (no triangle, zero normal)."""
    p = _in(positions, np.float64, (3,), "positions")
    n = _in(normals, np.float64, (3,), "normals")
    t = _in(triangles, np.uint32, (3,), "triangles")
    if p.ndim != 2 or n.shape != p.shape:
        raise SinewError(1, 1, message="positions and normals must both be (vertices, 3)")
    scratch = np.empty(p.shape)
    out = np.empty(p.shape[0])
    err = _err()
    _check(lib.sinew_metric_normal_error(p.shape[0], _ptr(p, "double *"), _ptr(n, "double *"), _ptr(t, "uint32_t *"),
                                         t.size, _ptr(scratch, "double *"), _ptr(out, "double *"), err), err)
    return out


def quality(model, positions, normals, palettes):
    """The quality table of one skinned motion: positions, normals
    (frames, vertices, 3) skinned with palettes (frames, joints, 46). Returns a
    dict: volume_min / volume_max (volume / rest volume), radius (mean bone
    distance / rest mean, worst frame), bone_increase_max (largest increase of a
    vertex's distance to its major bone, / model size), jump_ratio and
    max_jump (/ size), normal_error_max / _p99 / _mean (degrees, over vertices x
    frames: the change, from the rest mesh, of the angle between a vertex's
    normal and the normal of the skinned triangles around it)."""
    pos = _in(positions, np.float64)
    bind_pal = model.palettes(model.bind_pose(), "lbs")
    rest = np.asarray(model.rest_positions)
    v0 = volume(rest, model.triangles)
    vols = np.atleast_1d(volume(pos, model.triangles)) / v0 if v0 != 0 else np.full(pos.shape[0], np.nan)
    d0 = bone_distances(model, rest, bind_pal)
    d = bone_distances(model, pos, palettes)
    radius = d.mean(axis=-1) / d0.mean()
    e0 = normal_error(rest, model.rest_normals, model.triangles)
    errs = []
    for f in range(pos.shape[0]):
        e = normal_error(pos[f], normals[f], model.triangles)
        ok = (e >= 0) & (e0 >= 0)
        errs.append(np.abs(e[ok] - e0[ok]))
    errs = np.concatenate(errs) if errs else np.zeros(1)
    jr, mj = jumps(pos, 1e-7 * model.size)
    return {"volume_min": float(vols.min()), "volume_max": float(vols.max()),
            "radius": float(radius[np.argmax(np.abs(radius - 1))]),
            "bone_increase_max": float((d - d0).max() / model.size),
            "jump_ratio": jr, "max_jump": mj / model.size,
            "normal_error_max": float(errs.max()), "normal_error_p99": float(np.percentile(errs, 99)),
            "normal_error_mean": float(errs.mean())}

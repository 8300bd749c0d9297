"""sinew bake: deform a clip over a frame range into per-frame point caches,
deterministically, in one process or sharded over Dask distributed.

    python3 -m sinew.bake MODEL --clip I --frames A:B --method M --out DIR
        [--shard-frames N] [--local-workers N | --scheduler tcp://host:8786]
        [--fps F] [--bulge] [--device D | --cpu] [--format npz|h5|both] [--gltf-max-frames N]
    python3 -m sinew.bake --jobs JOBS.json [the same options, as defaults]

Output (docs/python.md, "Bakes"):
    DIR/frames/000012.npz   frame 12: positions, normals (vertices x 3 float32)
    DIR/cache.h5            every frame: positions, normals (frames x vertices x 3), frames, times
    DIR/baked.gltf + .bin   the rest mesh with one morph target per frame and a STEP
                            animation of the weights that shows frame after frame
    DIR/manifest.json       inputs' hashes, Sinew version, device, method, outputs' hashes
    DIR/shards/*.json       one per finished shard: its frames and their files' hashes
    DIR/run.json            this run's scheduling and timings (differs between runs, as do
                            the shard markers' names)

Models with morph targets follow the clip's weight tracks (morph applied before
skinning). Every frame is a pure function of (model bytes, clip, frame, fps, method, flags,
device): frames are skinned independently and written whole, so the files are
byte-identical whatever the shard size, worker count or completion order. The
GPU's float32 results are identical on one device type and driver, not across
devices; --cpu (the float64 reference, rounded to float32) is the same on any
x86-64 host. A shard's files are written to temporary names and renamed, then
its marker; a resumed bake skips the shards whose frames the markers of the
same job cover with intact files.
"""
import argparse
import hashlib
import io
import json
import os
import sys
import time
import zipfile

import numpy as np

JOB_FIELDS = ("model_sha256", "clip", "fps", "method", "flags", "device", "cpu", "sinew_version")
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _atomic_write(path, data):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def npz_bytes(arrays):
    """A .npz (numpy.load reads it) with fixed member dates and order: the same
    arrays always give the same bytes (numpy.savez stamps the current time)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for name in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=_ZIP_DATE)
            info.external_attr = 0o644 << 16
            z.writestr(info, member.getvalue())
    return buf.getvalue()


def frame_name(f):
    return "frames/%06d.npz" % f


# ---- the work of one shard (runs in the worker process) ----

_cache = {}  # per process: models by path, devices by selection


def _model(path):
    import sinew
    key = ("model", path)
    if key not in _cache:
        t = time.perf_counter()
        _cache[key] = sinew.load(path)
        _cache[("load_s", path)] = time.perf_counter() - t
    return _cache[key]


def _gpu(device):
    import sinew
    key = ("gpu", device)
    if key not in _cache:
        _cache[key] = sinew.Gpu(device)
    return _cache[key]


def device_name(job):
    return "cpu-reference (float64, rounded to float32)" if job["cpu"] else _gpu(job["device"]).name


def bake_shard(job, out, first, count):
    """Skins frames first .. first + count - 1 of the job and writes their files
    and the shard's marker. Returns the marker (a dict) with this run's timings."""
    timings = {}
    t0 = time.perf_counter()
    m = _model(job["model"])
    load_s = _cache.pop(("load_s", job["model"]), 0.0)  # counted once per worker process
    frames = np.arange(first, first + count)
    times = frames / float(job["fps"])
    t = time.perf_counter()
    local = m.sample(job["clip"], times)
    pal = m.palettes(local, job["method"])
    # morph targets follow the clip's weight tracks (the file's default weights without them)
    w = m.sample_weights(job["clip"], times) if m.morph_target_count else None
    timings["sample_s"] = time.perf_counter() - t
    t = time.perf_counter()
    if job["cpu"] and w is not None:
        p = np.empty((count, m.vertex_count, 3), np.float32)
        n = np.empty_like(p)
        for k in range(count):
            pk, nk = m.skin_reference(pal[k], job["method"], job["flags"], rest=m.morph(w[k]))
            p[k], n[k] = pk, nk
    elif job["cpu"]:
        p, n = m.skin_reference(pal, job["method"], job["flags"])
        p, n = p.astype(np.float32), n.astype(np.float32)
    else:
        p, n = _gpu(job["device"]).skin(m, pal, job["method"], job["flags"], batch=min(count, 64), morph_weights=w)
    timings["skin_s"] = time.perf_counter() - t
    t = time.perf_counter()
    os.makedirs(os.path.join(out, "frames"), exist_ok=True)
    os.makedirs(os.path.join(out, "shards"), exist_ok=True)
    files = {}
    for k, f in enumerate(frames):
        data = npz_bytes({"positions": p[k], "normals": n[k]})
        _atomic_write(os.path.join(out, frame_name(int(f))), data)
        files[frame_name(int(f))] = hashlib.sha256(data).hexdigest()
    marker = {"job": job["hash"], "first": int(first), "count": int(count), "device": device_name(job), "files": files}
    _atomic_write(os.path.join(out, "shards", "%s-%06d-%06d.json" % (job["hash"][:16], first, count)),
                  json.dumps(marker, sort_keys=True, indent=1).encode())
    timings["write_s"] = time.perf_counter() - t
    timings["load_s"] = load_s
    timings["total_s"] = time.perf_counter() - t0 + load_s
    return dict(marker, timings=timings, pid=os.getpid(), vertices=m.vertex_count)


# ---- planning, resume, assembly (the driver) ----

def lib_uses_centers(method):
    from sinew._ffi import lib
    return bool(lib.sinew_method_uses_centers(method))


def make_job(model, clip, fps, method, flags, device, cpu):
    import sinew
    sinew._method(method)
    m = sinew.load(model)  # fails early, in the driver, on a bad model or clip
    ci = m.clip_index(clip)
    if not 0 <= ci < len(m.clips):
        raise sinew.SinewError(20, 13, ci, message="the model has %d clips" % len(m.clips))
    if cpu and m.morph_target_count and (m.influences_per_vertex > 4 or
                                        lib_uses_centers(sinew._method(method))):
        raise ValueError("--cpu with morph targets: only for models with at most 4 influences and methods "
                         "without centers of rotation (the GPU path takes every case)")
    job = {"model": os.path.abspath(model), "model_sha256": sha256_file(model), "clip": ci,
           "clip_name": m.clips[ci].name, "fps": float(fps), "method": method, "flags": int(flags),
           "device": device, "cpu": bool(cpu), "sinew_version": sinew.version(), "vertices": m.vertex_count}
    job["hash"] = hashlib.sha256(json.dumps({k: job[k] for k in JOB_FIELDS}, sort_keys=True).encode()).hexdigest()
    return job, m


def done_frames(job, out):
    """Frames that finished shards of this job cover, with intact files: {frame: sha256}."""
    done = {}
    d = os.path.join(out, "shards")
    if not os.path.isdir(d):
        return done
    for name in sorted(os.listdir(d)):
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(d, name)) as f:
                marker = json.load(f)
        except (OSError, ValueError):
            continue
        if marker.get("job") != job["hash"]:
            continue
        for fname, h in marker["files"].items():
            path = os.path.join(out, fname)
            if os.path.exists(path) and sha256_file(path) == h:
                done[int(fname[7:13])] = h
    return done


def plan(frames, shard_frames, done):
    """Shards (first, count) of shard_frames frames over range(frames), without those fully done."""
    a, b = frames
    shards = []
    for s in range(a, b, shard_frames):
        c = min(shard_frames, b - s)
        if not all(f in done for f in range(s, s + c)):
            shards.append((s, c))
    return shards


def write_h5(out, frames, fps, vertices):
    import h5py
    a, b = frames
    tmp = os.path.join(out, "cache.h5.tmp")
    with h5py.File(tmp, "w", libver="earliest") as h:
        pos = h.create_dataset("positions", (b - a, vertices, 3), np.float32, track_times=False)
        nrm = h.create_dataset("normals", (b - a, vertices, 3), np.float32, track_times=False)
        h.create_dataset("frames", data=np.arange(a, b, dtype=np.int64), track_times=False)
        h.create_dataset("times", data=np.arange(a, b) / float(fps), track_times=False)
        for f in range(a, b):
            with np.load(os.path.join(out, frame_name(f))) as z:
                pos[f - a] = z["positions"]
                nrm[f - a] = z["normals"]
    os.replace(tmp, os.path.join(out, "cache.h5"))


def write_gltf(out, model, frames, fps):
    """baked.gltf + baked.bin: the rest mesh, one morph target per frame (position
    deltas from the rest positions), an animation of the weights with STEP
    interpolation (frame k's weight 1 from its time on, the others 0)."""
    a, b = frames
    nf, nv = b - a, model.vertex_count
    rest = np.asarray(model.rest_positions, np.float32)
    parts, views, accessors = [], [], []

    def add(arr, target=None, minmax=False, ctype=5126, kind="VEC3"):
        data = np.ascontiguousarray(arr).tobytes()
        offset = sum(len(p) for p in parts)
        parts.append(data + b"\0" * (-len(data) % 4))
        view = {"buffer": 0, "byteOffset": offset, "byteLength": len(data)}
        if target:
            view["target"] = target
        views.append(view)
        acc = {"bufferView": len(views) - 1, "componentType": ctype, "count": int(len(arr)), "type": kind}
        if minmax:
            acc["min"] = [float(x) for x in np.atleast_1d(np.min(arr, axis=0))]
            acc["max"] = [float(x) for x in np.atleast_1d(np.max(arr, axis=0))]
        accessors.append(acc)
        return len(accessors) - 1

    prim = {"attributes": {"POSITION": add(rest, 34962, True),
                           "NORMAL": add(np.asarray(model.rest_normals, np.float32), 34962)},
            "indices": add(np.asarray(model.triangles, np.uint32).reshape(-1), 34963, ctype=5125, kind="SCALAR"),
            "targets": []}
    for f in range(a, b):
        with np.load(os.path.join(out, frame_name(f))) as z:
            delta = z["positions"] - rest
        prim["targets"].append({"POSITION": add(delta, 34962, True)})
    t_in = add((np.arange(a, b) / float(fps)).astype(np.float32), kind="SCALAR", minmax=True)
    t_out = add(np.eye(nf, dtype=np.float32).reshape(-1), kind="SCALAR")
    gltf = {"asset": {"version": "2.0", "generator": "sinew bake"},
            "buffers": [{"uri": "baked.bin", "byteLength": sum(len(p) for p in parts)}],
            "bufferViews": views, "accessors": accessors,
            "meshes": [{"primitives": [prim], "weights": [1.0 if k == 0 else 0.0 for k in range(nf)]}],
            "nodes": [{"mesh": 0, "name": "baked"}], "scenes": [{"nodes": [0]}], "scene": 0,
            "animations": [{"name": "baked", "samplers": [{"input": t_in, "output": t_out, "interpolation": "STEP"}],
                            "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]}]}
    _atomic_write(os.path.join(out, "baked.bin"), b"".join(parts))
    _atomic_write(os.path.join(out, "baked.gltf"), json.dumps(gltf, sort_keys=True, indent=1).encode())


def _python_path():
    """Worker processes import sinew from where this process did."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if here not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([here] + paths)


def _other_job(job, out):
    """The hash of another job whose shards DIR holds, or None."""
    d = os.path.join(out, "shards")
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if name.endswith(".json") and not name.startswith(job["hash"][:16]):
            return name[:16]
    return None


def _start(spec):
    """Validates one job (a dict: model, clip, frames, method, out, shard_frames,
    fps, flags, device, cpu, formats, gltf_max_frames) and plans its shards."""
    a, b = spec["frames"]
    if not (0 <= a < b):
        raise ValueError("frames A:B needs 0 <= A < B (got %d:%d)" % (a, b))
    shard_frames = spec.get("shard_frames") or (b - a)
    if shard_frames < 1:
        raise ValueError("--shard-frames must be >= 1")
    t_start = time.perf_counter()
    job, m = make_job(spec["model"], spec["clip"], spec.get("fps", 30.0), spec["method"], spec.get("flags", 0),
                      spec.get("device"), spec.get("cpu", False))
    out = spec["out"]
    os.makedirs(out, exist_ok=True)
    other = _other_job(job, out)
    if other:
        raise ValueError("%s holds the bake of another job (%s...): one folder per job, or remove it" % (out, other))
    done = done_frames(job, out)
    return {"spec": spec, "job": job, "model": m, "out": out, "frames": (a, b), "shard_frames": shard_frames,
            "shards": plan((a, b), shard_frames, done), "done_before": sum(1 for f in range(a, b) if f in done),
            "t_start": t_start}


def _finish(st, results, scheduler):
    spec, job, m, out = st["spec"], st["job"], st["model"], st["out"]
    a, b = st["frames"]
    fps = job["fps"]
    # temporary files of shards whose worker died mid-write (their shard ran again)
    for sub in ("frames", "shards"):
        d = os.path.join(out, sub)
        for name in os.listdir(d) if os.path.isdir(d) else []:
            if ".tmp." in name:
                os.remove(os.path.join(d, name))
    # every frame must now be covered by a marker with an intact file
    done = done_frames(job, out)
    missing = [f for f in range(a, b) if f not in done]
    if missing:
        raise RuntimeError("frames %s have no finished shard" % missing[:10])
    t = time.perf_counter()
    if "h5" in spec.get("formats", ("npz", "h5")):
        write_h5(out, (a, b), fps, m.vertex_count)
    gmax = spec.get("gltf_max_frames", 240)
    if gmax and b - a <= gmax:
        write_gltf(out, m, (a, b), fps)
    assemble_s = time.perf_counter() - t
    devices = set()
    for name in os.listdir(os.path.join(out, "shards")):
        with open(os.path.join(out, "shards", name)) as f:
            mk = json.load(f)
        if mk.get("job") == job["hash"]:
            devices.add(mk["device"])
    outputs = {name: sha256_file(os.path.join(out, name)) for name in ("cache.h5", "baked.gltf", "baked.bin")
               if os.path.exists(os.path.join(out, name))}
    outputs.update({frame_name(f): done[f] for f in range(a, b)})
    manifest = {"sinew_version": job["sinew_version"], "job_hash": job["hash"],
                "model": {"file": os.path.basename(job["model"]), "sha256": job["model_sha256"],
                          "vertices": m.vertex_count},
                "clip": {"index": job["clip"], "name": job["clip_name"]}, "frames": [a, b], "fps": fps,
                "method": job["method"], "flags": job["flags"], "device": sorted(devices),
                "determinism": "every file is a pure function of the inputs above; byte-identical on the same "
                               "device type and driver (GPU float32), on any host for cpu-reference",
                "outputs": outputs}
    _atomic_write(os.path.join(out, "manifest.json"), json.dumps(manifest, sort_keys=True, indent=1).encode())
    wall = time.perf_counter() - st["t_start"]
    per_pid = {}
    for r in results:
        w = per_pid.setdefault(r["pid"], {"frames": 0, "load_s": 0.0, "sample_s": 0.0, "skin_s": 0.0, "write_s": 0.0,
                                          "total_s": 0.0})
        w["frames"] += r["count"]
        for k in ("load_s", "sample_s", "skin_s", "write_s", "total_s"):
            w[k] += r["timings"][k]
    for w in per_pid.values():
        busy = w["total_s"] - w["load_s"]
        w["frames_per_s"] = w["frames"] / busy if busy > 0 else None
        w["vertices_per_s"] = w["frames"] * m.vertex_count / busy if busy > 0 else None
    run = {"out": out, "shards_run": len(results), "shard_frames": st["shard_frames"],
           "frames_run": sum(r["count"] for r in results), "wall_s": wall, "assemble_s": assemble_s,
           "workers": list(per_pid.values()), "scheduler": scheduler}
    _atomic_write(os.path.join(out, "run.json"), json.dumps(run, sort_keys=True, indent=1).encode())
    return run


def bake_jobs(specs, client=None, retries=2, log=None):
    """Runs several jobs (dicts as _start takes; one output folder each) and
    returns their run.json contents. With a client, the shards of every job are
    Dask tasks at once; without, they run in this process, job after job."""
    outs = [os.path.abspath(s["out"]) for s in specs]
    if len(set(outs)) != len(outs):
        raise ValueError("two jobs write to the same folder")
    states = [_start(s) for s in specs]   # every job validated before any work
    for st in states:
        if log:
            a, b = st["frames"]
            log("sinew bake: %s: %d frames, %d shards of <= %d frames to run (%d frames already done)" %
                (st["out"], b - a, len(st["shards"]), st["shard_frames"], st["done_before"]))
    results = [[] for _ in states]
    if client is None:
        for i, st in enumerate(states):
            for s, c in st["shards"]:
                results[i].append(bake_shard(st["job"], st["out"], s, c))
        scheduler = "in-process"
    else:
        from distributed import as_completed
        subs = []
        for i, st in enumerate(states):
            # the key names the job, the output folder and the frames: the same shard of
            # another bake is another task (Dask would share a key's result)
            tag = hashlib.sha256((st["job"]["hash"] + os.path.abspath(st["out"])).encode()).hexdigest()[:16]
            for s, c in st["shards"]:
                subs.append((client.submit(bake_shard, st["job"], st["out"], s, c, retries=retries, pure=False,
                                           key="sinew-shard-%s-%d-%d" % (tag, s, c)), i))
        index = {f.key: i for f, i in subs}
        for fut in as_completed([f for f, _ in subs]):
            results[index[fut.key]].append(fut.result())
        scheduler = str(client.scheduler.address)
    return [_finish(st, results[i], scheduler) for i, st in enumerate(states)]


def bake(model, clip, frames, method, out, shard_frames=None, client=None, fps=30.0, flags=0, device=None,
         cpu=False, formats=("npz", "h5"), gltf_max_frames=240, retries=2, log=None):
    """Runs one bake (see the module's doc) and returns run.json's content. client:
    a distributed.Client (shards run as its tasks, `retries` retries each), or
    None (every shard in this process, in order)."""
    spec = {"model": model, "clip": clip, "frames": tuple(frames), "method": method, "out": out,
            "shard_frames": shard_frames, "fps": fps, "flags": flags, "device": device, "cpu": cpu,
            "formats": formats, "gltf_max_frames": gltf_max_frames}
    return bake_jobs([spec], client, retries, log)[0]


def _frames(text):
    a, b = (int(x) for x in str(text).split(":"))
    return a, b


def _jobs_file(path, defaults):
    """Jobs from a JSON file: a list of objects with model, clip, frames ("A:B"),
    method, out, and optionally shard_frames, fps, bulge, device, cpu, format,
    gltf_max_frames (the command line's values otherwise)."""
    with open(path) as f:
        items = json.load(f)
    if not isinstance(items, list) or not items:
        raise ValueError("%s: expected a non-empty JSON list of jobs" % path)
    known = {"model", "clip", "frames", "method", "out", "shard_frames", "fps", "bulge", "device", "cpu", "format",
             "gltf_max_frames"}
    specs = []
    base = os.path.dirname(os.path.abspath(path))
    for k, it in enumerate(items):
        unknown = set(it) - known if isinstance(it, dict) else {"(not an object)"}
        missing = {"model", "clip", "frames", "method", "out"} - set(it) if isinstance(it, dict) else set()
        if unknown or missing:
            raise ValueError("%s: job %d: %s" % (path, k, "unknown keys %s" % sorted(unknown) if unknown
                                                  else "missing %s" % sorted(missing)))
        try:
            frames = _frames(it["frames"])
        except ValueError:
            raise ValueError("%s: job %d: frames must be \"A:B\"" % (path, k))
        spec = dict(defaults)
        spec.update({"model": os.path.join(base, it["model"]), "clip": it["clip"], "frames": frames,
                     "method": it["method"], "out": os.path.join(base, it["out"])})
        for key in ("shard_frames", "fps", "device", "cpu", "gltf_max_frames"):
            if key in it:
                spec[key] = it[key]
        if "bulge" in it:
            spec["flags"] = 1 if it["bulge"] else 0
        if "format" in it:
            spec["formats"] = ("npz",) if it["format"] == "npz" else ("npz", "h5")
        specs.append(spec)
    return specs


def main(argv=None):
    import sinew
    ap = argparse.ArgumentParser(prog="python3 -m sinew.bake", description=__doc__.split("\n\n")[0])
    ap.add_argument("model", nargs="?")
    ap.add_argument("--clip", help="clip index or name")
    ap.add_argument("--frames", help="A:B, frames A .. B-1 (frame f at time f / fps)")
    ap.add_argument("--method", choices=sorted(sinew.METHODS))
    ap.add_argument("--out")
    ap.add_argument("--jobs", help="a JSON file of jobs instead of MODEL --clip --frames --method --out "
                                   "(docs/python.md); the options below are their defaults")
    ap.add_argument("--shard-frames", type=int, default=None, help="frames per shard [all in one]")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--local-workers", type=int, default=None, help="a Dask LocalCluster of N worker processes")
    g.add_argument("--scheduler", default=None, help="a running Dask scheduler, tcp://host:8786")
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--bulge", action="store_true", help="bulge correction (SINEW_SKIN_BULGE_CORRECTION)")
    d = ap.add_mutually_exclusive_group()
    d.add_argument("--device", default=None, help="Vulkan device index or name substring [the best]")
    d.add_argument("--cpu", action="store_true", help="the float64 reference instead of the GPU")
    ap.add_argument("--format", choices=("npz", "h5", "both"), default="both",
                    help="npz: per-frame files only; h5/both: also cache.h5")
    ap.add_argument("--gltf-max-frames", type=int, default=240, help="write baked.gltf up to this many frames (0: never)")
    ap.add_argument("--retries", type=int, default=2)
    o = ap.parse_args(argv)
    defaults = {"shard_frames": o.shard_frames, "fps": o.fps, "flags": sinew.BULGE if o.bulge else 0,
                "device": o.device, "cpu": o.cpu, "formats": ("npz",) if o.format == "npz" else ("npz", "h5"),
                "gltf_max_frames": o.gltf_max_frames}
    if o.jobs:
        if o.model or o.clip or o.frames or o.method or o.out:
            ap.error("--jobs replaces MODEL, --clip, --frames, --method and --out")
    else:
        for name in ("model", "clip", "frames", "method", "out"):
            if getattr(o, name) is None:
                ap.error("%s is required (or --jobs FILE)" % ("MODEL" if name == "model" else "--" + name))
        try:
            frames = _frames(o.frames)
        except ValueError:
            ap.error("--frames must be A:B")
    client = cluster = None
    try:
        if o.jobs:
            specs = _jobs_file(o.jobs, defaults)
        else:
            clip = int(o.clip) if o.clip.isdigit() else o.clip
            specs = [dict(defaults, model=o.model, clip=clip, frames=frames, method=o.method, out=o.out)]
        if o.local_workers or o.scheduler:
            from distributed import Client, LocalCluster
            _python_path()
            if o.scheduler:
                client = Client(o.scheduler)
            else:
                cluster = LocalCluster(n_workers=o.local_workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
                client = Client(cluster)
        runs = bake_jobs(specs, client, o.retries, log=lambda s: print(s, file=sys.stderr))
    except (sinew.SinewError, ValueError, OSError, RuntimeError) as e:
        print("sinew bake: %s" % e, file=sys.stderr)
        return 1
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    for spec, run in zip(specs, runs):
        a, b = spec["frames"]
        print("sinew bake: %d frames in %d shards, %.2f s; manifest %s" %
              (b - a, run["shards_run"], run["wall_s"], os.path.join(spec["out"], "manifest.json")))
        for w in run["workers"]:
            if w["frames_per_s"]:
                print("  worker: %d frames, %.1f frames/s, %.3g vertices/s (load %.2f s, sample %.2f s, skin %.2f s, "
                      "write %.2f s)" % (w["frames"], w["frames_per_s"], w["vertices_per_s"], w["load_s"],
                                         w["sample_s"], w["skin_s"], w["write_s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

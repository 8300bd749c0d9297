"""sinew.bake in one process: the same bytes for any shard size, resume skips
finished shards and redoes damaged ones, the files hold what the API computes,
the glTF re-imports, the CLI's errors. (ctest: python_bake)"""
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import sinew
from sinew import bake

MODEL = "/usr/share/assimp/models/FBX/huesitos.fbx"   # 256 vertices, 12 joints
FRAMES = (3, 27)
OUTPUTS = ["manifest.json", "cache.h5", "baked.gltf", "baked.bin"] + [bake.frame_name(f) for f in range(*FRAMES)]


def same_bytes(a, b):
    return [f for f in OUTPUTS if not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False)]


class BakeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sinew-bake-")
        cls.ref = os.path.join(cls.tmp, "ref")
        cls.run_ref = bake.bake(MODEL, 0, FRAMES, "dqs", cls.ref)     # one shard

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_shard_sizes_same_bytes(self):
        for n in (1, 5, 7):
            out = os.path.join(self.tmp, "shard%d" % n)
            run = bake.bake(MODEL, 0, FRAMES, "dqs", out, shard_frames=n)
            self.assertEqual(run["shards_run"], -(-(FRAMES[1] - FRAMES[0]) // n))
            self.assertEqual(same_bytes(self.ref, out), [], "shard size %d" % n)

    def test_resume(self):
        out = os.path.join(self.tmp, "resume")
        bake.bake(MODEL, 0, FRAMES, "dqs", out, shard_frames=4)
        again = bake.bake(MODEL, 0, FRAMES, "dqs", out, shard_frames=4)
        self.assertEqual(again["shards_run"], 0)
        os.remove(os.path.join(out, bake.frame_name(5)))               # shard 3..6
        with open(os.path.join(out, bake.frame_name(20)), "r+b") as f:  # shard 19..22: damaged
            f.seek(100)
            f.write(b"\xff\xff")
        run = bake.bake(MODEL, 0, FRAMES, "dqs", out, shard_frames=4)
        self.assertEqual(run["shards_run"], 2)
        self.assertEqual(same_bytes(self.ref, out), [])
        # another shard size over finished frames: nothing to do either
        self.assertEqual(bake.bake(MODEL, 0, FRAMES, "dqs", out, shard_frames=10)["shards_run"], 0)
        # another method is another job: refused in this folder, nothing touched
        with self.assertRaises(ValueError) as e:
            bake.bake(MODEL, 0, FRAMES, "lbs", out, shard_frames=24)
        self.assertIn("another job", str(e.exception))
        self.assertEqual(same_bytes(self.ref, out), [])

    def test_jobs_file(self):
        jobs = [{"model": MODEL, "clip": 0, "frames": "%d:%d" % FRAMES, "method": "dqs", "out": "j_dqs",
                 "shard_frames": 4},
                {"model": MODEL, "clip": "Armature|Action", "frames": "0:5", "method": "lbs", "out": "j_lbs",
                 "format": "npz"}]
        path = os.path.join(self.tmp, "jobs.json")
        with open(path, "w") as f:
            json.dump(jobs, f)
        r = subprocess.run([sys.executable, "-m", "sinew.bake", "--jobs", path, "--shard-frames", "2"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(same_bytes(self.ref, os.path.join(self.tmp, "j_dqs")), [])
        lbs = os.path.join(self.tmp, "lbs_single")
        bake.bake(MODEL, 0, (0, 5), "lbs", lbs)
        for f in range(5):
            self.assertTrue(filecmp.cmp(os.path.join(lbs, bake.frame_name(f)),
                                        os.path.join(self.tmp, "j_lbs", bake.frame_name(f)), shallow=False))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "j_lbs", "cache.h5")))
        self.assertEqual(len(os.listdir(os.path.join(self.tmp, "j_lbs", "shards"))), 3)  # the default of 2 frames
        with open(path, "w") as f:
            json.dump([dict(jobs[0], colour="red")], f)
        r = subprocess.run([sys.executable, "-m", "sinew.bake", "--jobs", path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown keys ['colour']", r.stderr)

    def test_contents(self):
        m = sinew.load(MODEL)
        frames = np.arange(*FRAMES)
        pal = m.palettes(m.sample(0, frames / 30.0), "dqs")
        p, n = sinew.Gpu().skin(m, pal, "dqs", batch=3)        # another batch size than the bake's
        for k, f in enumerate(frames):
            with np.load(os.path.join(self.ref, bake.frame_name(int(f)))) as z:
                self.assertTrue(np.array_equal(z["positions"], p[k]))
                self.assertTrue(np.array_equal(z["normals"], n[k]))
        import h5py
        with h5py.File(os.path.join(self.ref, "cache.h5"), "r") as h:
            self.assertTrue(np.array_equal(h["positions"][:], p))
            self.assertTrue(np.array_equal(h["frames"][:], frames))
        with open(os.path.join(self.ref, "manifest.json")) as f:
            man = json.load(f)
        self.assertEqual(man["model"]["sha256"], bake.sha256_file(MODEL))
        self.assertEqual((man["method"], man["sinew_version"], man["frames"]), ("dqs", sinew.version(), list(FRAMES)))
        self.assertEqual(man["device"], [sinew.Gpu().name])
        self.assertEqual(man["outputs"]["cache.h5"], bake.sha256_file(os.path.join(self.ref, "cache.h5")))
        # the glTF: Sinew's importer reads it back; target k at weight 1 gives frame k
        g = sinew.load(os.path.join(self.ref, "baked.gltf"))
        self.assertEqual(g.morph_target_count, len(frames))
        w = np.zeros(len(frames), np.float32)
        w[5] = 1
        # float32 deltas from float32 rest positions: a few float32 ulps of the model size
        np.testing.assert_allclose(g.morph(w)[0], p[5], atol=1e-6 * m.size)

    def test_cpu_reference(self):
        out = os.path.join(self.tmp, "cpu")
        bake.bake(MODEL, 0, (0, 4), "cor", out, shard_frames=3, cpu=True)
        m = sinew.load(MODEL)
        p, _ = m.skin_reference(m.palettes(m.sample(0, np.arange(4) / 30.0), "cor"), "cor")
        with np.load(os.path.join(out, bake.frame_name(2))) as z:
            self.assertTrue(np.array_equal(z["positions"], p[2].astype(np.float32)))
        with open(os.path.join(out, "manifest.json")) as f:
            self.assertIn("cpu-reference", json.load(f)["device"][0])

    def test_morph_animation(self):
        # a glTF whose clip animates morph weights: the frames follow them, GPU and --cpu
        model = os.path.join(os.environ.get("SINEW_SOURCE_DIR", "."), "tests", "data", "gltf", "morph_anim.gltf")
        m = sinew.load(model)
        times = np.arange(0, 12) / 30.0
        w = m.sample_weights(0, times)
        self.assertGreater(np.abs(w - m.morph_default_weights).max(), 0.1)   # the clip does move them
        pal = m.palettes(m.sample(0, times), "lbs")
        p, _ = sinew.Gpu().skin(m, pal, "lbs", morph_weights=w)
        for cpu in (False, True):
            out = os.path.join(self.tmp, "morph%d" % cpu)
            bake.bake(model, 0, (0, 12), "lbs", out, shard_frames=5, cpu=cpu)
            for f in (0, 7, 11):
                with np.load(os.path.join(out, bake.frame_name(f))) as z:
                    if cpu:  # the float64 reference on the morphed rest, rounded
                        ref = m.skin_reference(pal[f], "lbs", rest=m.morph(w[f]))[0].astype(np.float32)
                        self.assertTrue(np.array_equal(z["positions"], ref))
                    else:
                        self.assertTrue(np.array_equal(z["positions"], p[f]))
        with self.assertRaises(ValueError):   # the reference cannot morph for CoR
            bake.bake(model, 0, (0, 2), "cor", os.path.join(self.tmp, "morphcor"), cpu=True)

    def test_cli(self):
        env = dict(os.environ)
        cmd = [sys.executable, "-m", "sinew.bake", MODEL, "--clip", "0", "--method", "dqs"]
        out = os.path.join(self.tmp, "cli")
        r = subprocess.run(cmd + ["--frames", "3:27", "--out", out, "--shard-frames", "6"], env=env,
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("frames/s", r.stdout)
        self.assertEqual(same_bytes(self.ref, out), [])
        r = subprocess.run(cmd[:4] + ["--clip", "3", "--method", "dqs", "--frames", "0:4", "--out", out], env=env,
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("clip", r.stderr)
        r = subprocess.run(cmd + ["--frames", "9", "--out", out], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--frames must be A:B", r.stderr)
        r = subprocess.run([sys.executable, "-m", "sinew.bake", "/nonexistent.gltf", "--clip", "0", "--method", "dqs",
                            "--frames", "0:2", "--out", out], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("I/O", r.stderr + r.stdout)


if __name__ == "__main__":
    unittest.main()

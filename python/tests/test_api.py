"""Tests of the Python package: results against float64 NumPy re-implementations
and the C reference, errors as exceptions, the GPU on a batch of 100 poses.
Run with PYTHONPATH=<build>/python (ctest: python_api)."""
import os
import unittest

import numpy as np

import sinew

MODELS = "/usr/share/assimp/models"
SMALL = MODELS + "/FBX/huesitos.fbx"         # 256 vertices, 12 joints, 4 influences, one clip
REAL = MODELS + "/X/BCN_Epileptic.X"         # 15378 vertices, 58 joints, one clip
SRC = os.environ.get("SINEW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
MORPH = os.path.join(SRC, "tests", "data", "gltf", "morph_anim.gltf")


def quat_matrix(q):
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def fk_skin(model, local):
    """NumPy float64 skin matrices M_j B_j^-1 (row-major 4x4) from local T R S poses."""
    n = model.joint_count
    glob = np.zeros((n, 4, 4))
    for j in range(n):
        t, q, s = local[j, 0:3], local[j, 3:7], local[j, 7:10]
        m = np.eye(4)
        m[:3, :3] = quat_matrix(q / np.linalg.norm(q)) * s
        m[:3, 3] = t
        p = model.joint_parents[j]
        glob[j] = m if p < 0 else glob[p] @ m
    return glob @ np.linalg.inv(model.bind_matrices)


def random_pose(model, rng, angle=0.6):
    """The bind pose with every joint turned by a random rotation of up to `angle` rad."""
    local = model.bind_pose().copy()
    for j in range(model.joint_count):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        a = rng.uniform(-angle, angle)
        r = np.append(axis * np.sin(a / 2), np.cos(a / 2))  # xyzw
        q = local[j, 3:7]
        # r * q (Hamilton product, xyzw)
        x1, y1, z1, w1 = r
        x2, y2, z2, w2 = q
        local[j, 3:7] = [w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2, w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                         w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2, w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2]
    return local


def numpy_lbs(model, skin):
    """Float64 LBS of the packed (float32) rest positions with the packed weights."""
    p = np.asarray(model.rest_positions, np.float32).astype(np.float64)
    ph = np.concatenate([p, np.ones((len(p), 1))], axis=1)
    w = model.influence_weights.astype(np.float64)
    # the packed weights are unorm16 summing to exactly 65535
    w = np.round(w * 65535.0) / 65535.0
    out = np.zeros_like(p)
    for k in range(model.influences_per_vertex):
        out += w[:, k:k + 1] * np.einsum("vij,vj->vi", skin[model.influence_joints[:, k]][:, :3, :], ph)
    return out


class ModelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = sinew.load(SMALL)

    def test_arrays(self):
        m = self.m
        self.assertEqual((m.vertex_count, m.joint_count, m.influences_per_vertex), (256, 12, 4))
        self.assertEqual(m.rest_positions.shape, (256, 3))
        self.assertFalse(m.rest_positions.flags.writeable)
        self.assertEqual(m.triangles.shape, (m.triangle_count, 3))
        self.assertLess(int(m.triangles.max()), m.vertex_count)
        np.testing.assert_allclose(m.influence_weights.sum(axis=1), 1.0, atol=1e-4)
        self.assertEqual(len(m.joint_names), m.joint_count)
        self.assertTrue(all(p < j for j, p in enumerate(m.joint_parents)))  # parents first
        # zero-copy: two views of the same C memory
        self.assertEqual(m.rest_positions.__array_interface__["data"][0],
                         m.rest_positions.__array_interface__["data"][0])

    def test_bind_pose_reproduces_rest(self):
        m = self.m
        pal = m.palettes(m.bind_pose(), "lbs")
        pos, nrm = m.skin_reference(pal, "lbs")
        # float32 packed positions skinned by ~identity: within 1e-5 of the model size
        self.assertLess(np.abs(pos - m.rest_positions).max(), 1e-5 * m.size)

    def test_palettes_against_numpy_fk(self):
        rng = np.random.default_rng(1)
        m = self.m
        for _ in range(3):
            local = random_pose(m, rng)
            pal = m.palettes(local, "lbs")
            skin = pal[:, 0:16].reshape(-1, 4, 4).transpose(0, 2, 1)  # m[col][row] -> [row][col]
            # tolerance: float64 products of ~12 matrices of entries up to the model size
            np.testing.assert_allclose(skin, fk_skin(m, local), atol=1e-9 * m.size)

    def test_reference_lbs_against_numpy(self):
        rng = np.random.default_rng(2)
        m = self.m
        locals_ = np.stack([random_pose(m, rng) for _ in range(4)])
        pal = m.palettes(locals_, "lbs")
        pos, nrm = m.skin_reference(pal, "lbs")
        self.assertEqual(pos.shape, (4, m.vertex_count, 3))
        for f in range(4):
            skin = pal[f, :, 0:16].reshape(-1, 4, 4).transpose(0, 2, 1)
            # same float64 formula, summation order may differ: 1e-12 of the size
            np.testing.assert_allclose(pos[f], numpy_lbs(m, skin), atol=1e-12 * m.size)
        np.testing.assert_allclose(np.linalg.norm(nrm, axis=-1), 1.0, atol=1e-12)

    def test_sample_clip(self):
        m = self.m
        d = m.clips[0].duration
        a = m.sample(0, [0.25 * d, 1.25 * d])          # loop: the same pose
        np.testing.assert_allclose(a[0], a[1], atol=1e-12)
        c = m.sample(m.clips[0].name, [5 * d], wrap="clamp")
        np.testing.assert_allclose(c[0], m.sample(0, [d], wrap="clamp")[0], atol=1e-12)

    def test_errors(self):
        with self.assertRaises(sinew.SinewError) as e:
            sinew.load("/nonexistent/model.gltf")
        self.assertEqual(e.exception.code, 18)  # SINEW_ERROR_IO
        self.assertEqual(e.exception.item, "file")
        with self.assertRaises(sinew.SinewError) as e:
            self.m.palettes(self.m.bind_pose(), "dq")
        self.assertEqual(e.exception.code, 20)  # NOT_FOUND
        with self.assertRaises(sinew.SinewError) as e:
            self.m.sample(7, [0.0])
        self.assertEqual((e.exception.code, e.exception.item), (20, "clip"))
        scaled = self.m.bind_pose().copy()
        scaled[1, 7:10] = 2.0
        with self.assertRaises(sinew.SinewError) as e:
            self.m.palettes(scaled, "dqs")
        self.assertEqual(e.exception.code, 7)  # NOT_RIGID
        self.assertIn("scale", e.exception.message)
        self.m.palettes(scaled, "dqs-scale")      # the scale methods take it
        with self.assertRaises(sinew.SinewError):
            self.m.palettes(np.zeros((3, 10)), "lbs")  # wrong joint count
        with self.assertRaises(sinew.SinewError) as e:
            self.m.sample(0, [float("nan")])
        self.assertEqual(e.exception.code, 9)  # NON_FINITE
        gpu = sinew.Gpu()
        pal = self.m.palettes(self.m.bind_pose(), "lbs")
        bad = pal.copy()
        bad[3, 0] = 1e39                           # finite in float64, not in float32
        with self.assertRaises(sinew.SinewError) as e:
            gpu.skin(self.m, bad, "lbs")
        self.assertEqual(e.exception.code, 9)      # NON_FINITE, nothing sent to the GPU
        p, _ = gpu.skin(self.m, pal, "lbs")        # the next call works
        self.assertLess(np.abs(p - self.m.rest_positions).max(), 1e-5 * self.m.size)
        with self.assertRaises(sinew.SinewError) as e:
            sinew.Gpu("no such device, surely")
        self.assertEqual(e.exception.code, 16)  # NO_DEVICE


class MetricsTest(unittest.TestCase):
    def test_volume(self):
        # unit cube, outward winding: volume 1; flipped: -1
        p = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)
        quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
        tri = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))], np.uint32)
        self.assertAlmostEqual(sinew.volume(p, tri), 1.0, places=14)
        self.assertAlmostEqual(sinew.volume(p, tri[:, ::-1]), -1.0, places=14)
        rng = np.random.default_rng(3)
        q = rng.normal(size=(50, 3))
        t = rng.integers(0, 50, size=(80, 3)).astype(np.uint32)
        ref = np.einsum("ij,ij->i", q[t[:, 0]], np.cross(q[t[:, 1]], q[t[:, 2]])).sum() / 6
        self.assertAlmostEqual(sinew.volume(q, t), ref, delta=1e-12 * abs(ref) + 1e-14)
        with self.assertRaises(sinew.SinewError):
            sinew.volume(q, np.array([[0, 1, 50]], np.uint32))

    def test_jumps(self):
        rng = np.random.default_rng(4)
        fr = np.cumsum(rng.uniform(0.5, 1.5, size=(9, 20, 3)), axis=0)
        d = np.linalg.norm(np.diff(fr, axis=0), axis=-1)          # (8, 20)
        ratio, mj = sinew.jumps(fr)
        self.assertAlmostEqual(mj, d.max(), delta=1e-12)
        self.assertAlmostEqual(ratio, (d.max(axis=0) / np.median(d, axis=0)).max(), delta=1e-12)

    def test_normal_error_and_bone_distance(self):
        m = sinew.load(SMALL)
        rng = np.random.default_rng(5)
        local = random_pose(m, rng)
        pal = m.palettes(local, "dqs")
        pos, nrm = m.skin_reference(pal, "dqs")
        e = sinew.normal_error(pos, nrm, m.triangles)
        t = m.triangles
        acc = np.zeros_like(pos)
        c = np.cross(pos[t[:, 1]] - pos[t[:, 0]], pos[t[:, 2]] - pos[t[:, 0]])
        for k in range(3):
            np.add.at(acc, t[:, k], c)
        cosang = np.einsum("ij,ij->i", acc, nrm) / np.linalg.norm(acc, axis=1) / np.linalg.norm(nrm, axis=1)
        ref = np.degrees(np.arccos(np.clip(cosang, -1, 1)))
        ok = e >= 0
        self.assertGreater(ok.sum(), 0.9 * m.vertex_count)
        np.testing.assert_allclose(e[ok], ref[ok], atol=1e-5)  # degrees; arccos loses precision near 0
        d = sinew.bone_distances(m, pos, pal)
        major = m.major_joints()
        a, b = pal[major, 40:43], pal[major, 43:46]
        ab = b - a
        tt = np.clip(np.einsum("ij,ij->i", pos - a, ab) / np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-300), 0, 1)
        np.testing.assert_allclose(d, np.linalg.norm(pos - (a + tt[:, None] * ab), axis=1), atol=1e-12 * m.size)


class MorphTest(unittest.TestCase):
    def test_morph_linear_and_default(self):
        m = sinew.load(MORPH)
        self.assertGreater(m.morph_target_count, 0)
        pos, nrm = m.morph(m.morph_default_weights)
        np.testing.assert_allclose(pos, m.rest_positions, atol=1e-6 * m.size)
        rng = np.random.default_rng(6)
        w1 = rng.uniform(0, 1, m.morph_target_count).astype(np.float32)
        w2 = rng.uniform(0, 1, m.morph_target_count).astype(np.float32)
        d0 = m.morph_default_weights
        p1 = m.morph(w1)[0] - m.rest_positions
        p2 = m.morph(w2)[0] - m.rest_positions
        p12 = m.morph((w1 + w2 - d0).astype(np.float32))[0] - m.rest_positions
        # positions are linear in the weights (float32 deltas, float64 sums)
        np.testing.assert_allclose(p12, p1 + p2, atol=1e-6 * m.size)
        with self.assertRaises(sinew.SinewError):
            m.morph(np.zeros(m.morph_target_count + 1, np.float32))
        # the clip's weight tracks: looping, clamping, defaults without a clip
        d = m.clips[0].duration
        a = m.sample_weights(0, [0.3 * d, 1.3 * d, 5 * d])
        np.testing.assert_allclose(a[0], a[1], atol=1e-6)
        np.testing.assert_array_equal(m.sample_weights(None, [0.0])[0], d0)
        np.testing.assert_array_equal(m.sample_weights(0, [5 * d], wrap="clamp"),
                                      m.sample_weights(0, [d], wrap="clamp"))
        self.assertEqual(m.sample_weights(0, np.linspace(0, d, 7)).shape, (7, m.morph_target_count))
        pal = m.palettes(m.bind_pose(), "lbs")
        sp, sn = m.skin_reference(pal, "lbs", rest=m.morph(w1))
        np.testing.assert_allclose(sp, m.morph(w1)[0], atol=1e-5 * m.size)


class GpuTest(unittest.TestCase):
    def test_batch_of_100_poses(self):
        m = sinew.load(REAL)
        gpu = sinew.Gpu()
        d = m.clips[0].duration
        local = m.sample(0, np.arange(100) * d / 100)
        for method in ("lbs", "dqs", "cor"):
            pal = m.palettes(local, method)
            ref_p, ref_n = m.skin_reference(pal, method)
            p, n = gpu.skin(m, pal, method, batch=32)    # 4 dispatches, the last one partial
            self.assertEqual(p.shape, (100, m.vertex_count, 3))
            self.assertEqual(p.dtype, np.float32)
            # float32 kernel vs float64 reference (as test_gpu_cor): positions 2e-5 of
            # the model size, normals 1e-4
            ep = np.abs(p - ref_p).max() / m.size
            en = np.abs(n - ref_n).max()
            self.assertLess(ep, 2e-5, method)
            self.assertLess(en, 1e-4, method)


class GpuMorphTest(unittest.TestCase):
    def test_morph_weights_on_gpu(self):
        m = sinew.load(MORPH)
        rng = np.random.default_rng(7)
        W = rng.uniform(-1, 2, (12, m.morph_target_count)).astype(np.float32)
        local = np.stack([random_pose(m, rng, 1.5) for _ in range(12)])
        gpu = sinew.Gpu()
        for method in ("lbs", "dqs"):
            pal = m.palettes(local, method)
            p, n = gpu.skin(m, pal, method, morph_weights=W, batch=5)   # 3 dispatches, 5 morphed copies
            for f in range(12):
                rp, rn = m.skin_reference(pal[f], method, rest=m.morph(W[f]))
                # as test_gpu_morph: positions 2e-5 of the size, normals 1e-4
                self.assertLess(np.abs(p[f] - rp).max(), 2e-5 * m.size, (method, f))
                self.assertLess(np.abs(n[f] - rn).max(), 1e-4, (method, f))
            # the same weights for every pose; the defaults give the unmorphed skin
            p1, _ = gpu.skin(m, pal, method, morph_weights=W[3])
            self.assertLess(np.abs(p1[7] - m.skin_reference(pal[7], method, rest=m.morph(W[3]))[0]).max(), 2e-5 * m.size)
            p0, _ = gpu.skin(m, pal, method, morph_weights=m.morph_default_weights)
            self.assertLess(np.abs(p0 - m.skin_reference(pal, method)[0]).max(), 2e-5 * m.size)
        with self.assertRaises(sinew.SinewError):
            gpu.skin(m, pal, "lbs", morph_weights=np.zeros((3, m.morph_target_count), np.float32))
        bad = W.copy()
        bad[4, 1] = np.nan
        with self.assertRaises(sinew.SinewError) as e:
            gpu.skin(m, pal, "lbs", morph_weights=bad)
        self.assertEqual((e.exception.code, e.exception.index), (9, 4))   # NON_FINITE, pose 4
        small = sinew.load(SMALL)
        with self.assertRaises(sinew.SinewError):
            gpu.skin(small, small.palettes(small.bind_pose(), "lbs"), "lbs", morph_weights=np.zeros(0, np.float32))


if __name__ == "__main__":
    unittest.main()

"""sinew.bake on Dask distributed: one LocalCluster of 2 worker processes (one
thread each) for the whole file. The sharded bake is byte-identical to the
single-process bake; a worker killed mid-bake, and tasks that fail once, leave
the bake complete with the same bytes. (ctest: python_bake_dask)"""
import filecmp
import os
import shutil
import signal
import tempfile
import threading
import time
import unittest

from distributed import Client, LocalCluster

from sinew import bake

MODEL = "/usr/share/assimp/models/X/BCN_Epileptic.X"   # 15378 vertices, 58 joints
FRAMES = (0, 36)
OUTPUTS = ["manifest.json", "cache.h5", "baked.gltf", "baked.bin"] + [bake.frame_name(f) for f in range(*FRAMES)]


def differing(a, b):
    return [f for f in OUTPUTS if not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False)]


def _fail_first_write():
    """Run on each worker: its next frame write raises once (then writes go through)."""
    import sinew.bake as b
    real = b.npz_bytes
    state = {"failed": False}

    def flaky(arrays):
        if not state["failed"]:
            state["failed"] = True
            raise OSError("injected failure (test)")
        return real(arrays)
    b._real_npz_bytes = real
    b.npz_bytes = flaky
    return os.getpid()


def _slow_writes():
    """Run on each worker: every frame write takes 30 ms longer, so that the bake
    is surely still running when the test kills a worker (on any machine)."""
    import sinew.bake as b
    real = b.npz_bytes

    def slow(arrays):
        time.sleep(0.03)
        return real(arrays)
    b._real_npz_bytes = real
    b.npz_bytes = slow


def _restore_write():
    import sinew.bake as b
    b.npz_bytes = getattr(b, "_real_npz_bytes", b.npz_bytes)


class DaskBakeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        bake._python_path()
        cls.tmp = tempfile.mkdtemp(prefix="sinew-dask-")
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        cls.client = Client(cls.cluster)
        cls.single = os.path.join(cls.tmp, "single")
        bake.bake(MODEL, 0, FRAMES, "dqs", cls.single)    # in this process, one shard

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        shutil.rmtree(cls.tmp)

    def test_sharded_equals_single(self):
        out = os.path.join(self.tmp, "sharded")
        run = bake.bake(MODEL, 0, FRAMES, "dqs", out, shard_frames=5, client=self.client)
        self.assertEqual(run["shards_run"], 8)
        self.assertEqual(len(run["workers"]), 2)          # both workers took shards
        self.assertEqual(differing(self.single, out), [])

    def test_worker_killed_mid_bake(self):
        out = os.path.join(self.tmp, "killed")
        result, error = {}, []

        def run():
            try:
                result.update(bake.bake(MODEL, 0, FRAMES, "dqs", out, shard_frames=2, client=self.client))
            except Exception as e:  # reported below
                error.append(e)
        self.client.run(_slow_writes)
        t = threading.Thread(target=run)
        t.start()
        killed = None
        deadline = time.time() + 60
        while killed is None and time.time() < deadline and t.is_alive():
            shards = os.path.join(out, "shards")
            if os.path.isdir(shards) and os.listdir(shards):       # at least one shard finished
                busy = [w for w, keys in self.client.processing().items() if keys]
                if busy:
                    pid = self.client.run(os.getpid, workers=[busy[0]])[busy[0]]
                    os.kill(pid, signal.SIGKILL)
                    killed = pid
            time.sleep(0.01)
        t.join(120)
        self.client.run(_restore_write)
        self.assertFalse(t.is_alive())
        self.assertEqual(error, [])
        self.assertIsNotNone(killed, "no worker was busy after the first shard finished")
        done = len(os.listdir(os.path.join(out, "shards")))
        self.assertEqual(done, 18)
        self.assertEqual(differing(self.single, out), [])
        self.client.wait_for_workers(2, timeout=60)          # the nanny restarted it

    def test_failed_tasks_retried(self):
        self.client.wait_for_workers(2, timeout=60)
        self.client.run(_fail_first_write)
        try:
            out = os.path.join(self.tmp, "retried")
            bake.bake(MODEL, 0, FRAMES, "dqs", out, shard_frames=9, client=self.client, retries=2)
            self.assertEqual(differing(self.single, out), [])
        finally:
            self.client.run(_restore_write)
        with self.assertRaises(OSError):       # without retries the failure reaches the caller
            self.client.run(_fail_first_write)
            try:
                bake.bake(MODEL, 0, FRAMES, "dqs", os.path.join(self.tmp, "noretry"), shard_frames=9,
                          client=self.client, retries=0)
            finally:
                self.client.run(_restore_write)


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""Tests of the measuring scripts' parsers: summarize.py (GC log), threadcpu.py (per-thread CPU), summarize_openfire.py.

  python3 -m unittest discover -s jvm-tuning -p 'test_*.py'      (JvmTuningScriptsTest runs it in the build)
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summarize  # noqa: E402
import summarize_openfire  # noqa: E402
import threadcpu  # noqa: E402

T0 = int(datetime.datetime(2026, 11, 28, 9, 30, 0, tzinfo=datetime.timezone.utc).timestamp() * 1000)


def iso(ms):
    """The gc-log add-on's [time] decoration for wall-clock ms (UTC)."""
    d = datetime.datetime.fromtimestamp(ms / 1000.0, tz=datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03d+0000" % (ms % 1000)


class GcLogTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.dir.name, "gc.log")

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, lines):
        with open(os.path.join(self.dir.name, name), "w") as f:
            f.write("\n".join(lines) + "\n")

    def test_timeDecoration_andRotatedFiles_areRead_andWindowed(self):
        # the operator forms' decorations: [time][uptime][level][tags]; the JDK rotates gc.log into gc.log.0, ...
        self.write("gc.log.0", [
            "[%s][1.000s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 50M->10M(1024M) 30.000ms" % iso(T0 - 5000),
            "[%s][6.100s][info][gc] GC(1) Pause Young (Normal) (G1 Evacuation Pause) 60M->12M(1024M) 4.250ms" % iso(T0 + 100),
        ])
        self.write("gc.log", [
            "[%s][7.000s][info][gc,start    ] GC(2) Pause Young (Normal) (G1 Evacuation Pause)" % iso(T0 + 1000),
            "[%s][7.010s][info][gc          ] GC(2) Pause Young (Normal) (G1 Evacuation Pause) 61M->12M(1024M) 9.500ms" % iso(T0 + 1010),
            "[%s][7.011s][info][safepoint   ] Safepoint \"G1CollectForAllocation\", Time since last: 1 ns, Reaching safepoint: 200000 ns, At safepoint: 9600000 ns, Total: 9800000 ns" % iso(T0 + 1011),
            "[%s][8.000s][info][gc,phases   ] GC(3) y: Pause Mark Start 0.012ms" % iso(T0 + 2000),
            "[%s][9.000s][info][gc          ] GC(4) Allocation Stall (http-worker) 12.500ms" % iso(T0 + 3000),
            "[%s][99.000s][info][gc] GC(9) Pause Full (System.gc()) 100M->50M(1024M) 300.000ms" % iso(T0 + 99000),
            "not a log line",
        ])
        events = []
        gc, sp, stall, gc_all = summarize.parse_gc_log(self.log, T0, T0 + 10000, events)
        self.assertEqual(gc["count"], 3)            # 4.25, 9.5, 0.012: before and after the window excluded
        self.assertAlmostEqual(gc["max"], 9.5)
        self.assertAlmostEqual(gc["sum"], 13.8)
        self.assertEqual(gc_all["count"], 5)        # the whole log, rotated file included
        self.assertAlmostEqual(sp["max"], 9.8)
        self.assertEqual(stall["count"], 1)
        self.assertEqual(sorted(e["kind"] for e in events),
                         ["allocation-stall", "pause", "pause", "pause", "safepoint"])
        self.assertEqual([e["t"] for e in events if e["kind"] == "safepoint"], [T0 + 1011])

    def test_measureShDecoration_stillRead(self):
        self.write("gc.log", ["[6.100s][%dms][info][gc] GC(1) Pause Young (Normal) (G1 Evacuation Pause) 60M->12M(1024M) 4.250ms" % (T0 + 100)])
        gc, _, _, _ = summarize.parse_gc_log(self.log, T0, T0 + 1000)
        self.assertEqual(gc["count"], 1)

    def test_offsetInTime_isHonoured(self):
        # a server logging local time (+0100) at 10:30:00.100 is 09:30:00.100 UTC
        self.write("gc.log", ["[2026-11-28T10:30:00.100+0100][6.100s][info][gc] GC(1) Pause Remark 10M->10M(1024M) 2.000ms"])
        events = []
        summarize.parse_gc_log(self.log, T0, T0 + 1000, events)
        self.assertEqual([e["t"] for e in events], [T0 + 100])


JDKS = {"17": os.environ.get("MUCSCALE_TEST_JDK17", "/usr/lib/jvm/java-17-openjdk-amd64"),
        "25": os.environ.get("MUCSCALE_TEST_JDK25", "/usr/lib/jvm/temurin-25-jdk-amd64")}


class RealJvmGcLogTest(unittest.TestCase):
    """The add-on's decorations as a real JVM writes them (not as a test author imagines them) are read, in wall time."""

    def test_addonDecorations_fromRealJdks_areParsed(self):
        ran = 0
        for major, home in JDKS.items():
            java = os.path.join(home, "bin", "java")
            if not os.access(java, os.X_OK):
                continue
            with tempfile.TemporaryDirectory() as d, self.subTest(jdk=major):
                src = os.path.join(d, "Gc.java")
                with open(src, "w") as f:
                    f.write("public class Gc { public static void main(String[] a) { System.gc(); System.gc(); } }\n")
                log = os.path.join(d, "gc.log")
                before = int(time.time() * 1000) - 1000
                subprocess.run([java, "-XX:+UseG1GC", "-Xmx64m",
                                "-Xlog:gc*,safepoint:file=%s:time,uptime,level,tags:filecount=10,filesize=20m" % log,
                                src], check=True, timeout=120, capture_output=True)
                after = int(time.time() * 1000) + 1000
                events = []
                gc, sp, _, gc_all = summarize.parse_gc_log(log, before, after, events)
                self.assertGreaterEqual(gc["count"], 2, "two System.gc() full pauses on JDK %s" % major)
                self.assertEqual(gc_all["count"], gc["count"], "every pause falls in the run's wall-clock window")
                self.assertGreaterEqual(sp["count"], 2)
                self.assertTrue(any("Pause Full (System.gc())" in e["what"] for e in events))
                ran += 1
        if ran == 0:
            self.skipTest("neither JDK 17 nor JDK 25 at the usual paths")


class ThreadCpuTest(unittest.TestCase):
    def test_groupsAndCategories(self):
        cases = {"GC Thread#0": ("GC Thread#", "gc"), "G1 Conc#0": ("G1 Conc#", "gc"), "G1 Refine#2": ("G1 Refine#", "gc"),
                 "ZWorkerYoung#1": ("ZWorkerYoung#", "gc"), "ZDriverMinor": ("ZDriverMinor", "gc"),
                 "Shenandoah GC T": ("Shenandoah GC T", "gc"), "VM Thread": ("VM Thread", "vm"),
                 "VM Periodic Tas": ("VM Periodic Tas", "vm"), "RuntimeWorker#0": ("RuntimeWorker#", "vm"), "C2 CompilerThre": ("C2 CompilerThre", "jit"),
                 "mucscale-room-1": ("mucscale-room-", "mucscale"), "socket_c2s-thre": ("socket_c2s-thre", "openfire-network"),
                 "TaskEngine-pool": ("TaskEngine-pool", "openfire")}
        for name, (group, cat) in cases.items():
            self.assertEqual(threadcpu.group_of(name), group, name)
            self.assertEqual(threadcpu.category_of(threadcpu.group_of(name)), cat, name)

    def test_groupsBetween_countsNewThreads_andRecycledTids_fromZero(self):
        a = {"t": 1000, "proc": 1_000_000_000, "threads": [
            [1, "GC Thread#0", 100_000_000, 10_000_000], [2, "mucscale-room-0", 200_000_000, 0],
            [3, "mucscale-room-1", 50_000_000, 0], [4, "gone", 5_000_000, 0]]}
        b = {"t": 3000, "proc": 1_600_000_000, "threads": [
            [1, "GC Thread#0", 150_000_000, 30_000_000], [2, "mucscale-room-0", 400_000_000, 5_000_000],
            [3, "reused-tid", 20_000_000, 1_000_000], [5, "mucscale-room-2", 100_000_000, 2_000_000]]}
        g = threadcpu.groups_between(a, b)
        by = {x["group"]: x for x in g["groups"]}
        self.assertEqual(by["GC Thread#"]["cpuMs"], 50.0)
        self.assertEqual(by["GC Thread#"]["runQueueWaitMs"], 20.0)
        self.assertEqual(by["mucscale-room-"]["cpuMs"], 300.0)      # 200 + a new thread's 100
        self.assertEqual(by["mucscale-room-"]["threads"], 2)
        self.assertEqual(by["reused-tid"]["cpuMs"], 20.0)           # a tid with another name starts from zero
        self.assertEqual(g["processCpuMs"], 600.0)
        self.assertEqual(g["unattributedMs"], 230.0)                # 600 - (50 + 300 + 20)
        self.assertEqual(g["categories"]["gc"]["cpuShare"], round(50 / 600, 4))
        self.assertEqual(g["processCpuPct"], 30.0)                  # 600 ms in 2 s

    def test_groupsBetween_skipsAThreadTheFirstSampleMissed(self):
        # tid 7 started 50 s after boot, before sample a (taken at 100 s) but missing from it: no baseline, not counted;
        # tid 8 started at 101 s, after a: counted in full
        a = {"t": 1000, "up": 100.0, "tick": 1e7, "proc": 0, "threads": [[1, "GC Thread#0", 0, 0, 100]]}
        b = {"t": 2000, "up": 101.0, "tick": 1e7, "proc": 900_000_000, "threads": [
            [1, "GC Thread#0", 100_000_000, 0, 100], [7, "mucscale-room-0", 5_000_000_000, 0, 5000],
            [8, "mucscale-room-1", 300_000_000, 0, 10100]]}
        by = {x["group"]: x for x in threadcpu.groups_between(a, b)["groups"]}
        self.assertEqual(by["mucscale-room-"]["cpuMs"], 300.0)
        self.assertEqual(by["mucscale-room-"]["threads"], 1)

    def test_sampleOnce_readsThisProcess(self):
        s = threadcpu.sample_once(os.getpid())
        self.assertIn(os.getpid(), [t[0] for t in s["threads"]])
        self.assertTrue(all(len(t) == 5 and t[2] >= 0 and t[4] * s["tick"] / 1e9 <= s["up"] for t in s["threads"]))

    def test_coresBetween_splitsTheProcessCoresTimeIntoTheJvmAndTheRest(self):
        # CPU 0 is the process's; CPU 1 is not counted. Fields: user nice system idle iowait irq softirq steal (ticks)
        a = {"t": 1000, "proc": 0, "threads": [], "affinity": "0",
             "cpus": {"0": [100, 0, 50, 1000, 0, 0, 10, 0], "1": [0] * 8}}
        b = {"t": 2000, "proc": 400_000_000, "threads": [], "affinity": "0",
             "cpus": {"0": [130, 0, 60, 1040, 1, 0, 25, 3], "1": [90, 0, 0, 10, 0, 0, 0, 0]}}
        c = threadcpu.cores_between(a, b)
        self.assertEqual(c["cpus"], "0")
        self.assertEqual((c["userMs"], c["systemMs"], c["softirqMs"], c["stealMs"], c["idleMs"]),
                         (300.0, 100.0, 150.0, 30.0, 400.0))
        self.assertEqual(c["busyMs"], 580.0)                    # 300 + 100 + 150 + 30: idle and iowait are not busy
        self.assertEqual(c["otherMs"], 180.0)                   # busy minus the process's 400 ms
        self.assertIsNone(threadcpu.cores_between({"t": 0, "proc": 0}, b))   # samples from before the CPU fields
        self.assertEqual(threadcpu.cpu_list("0-2,5"), ["0", "1", "2", "5"])

    def test_sampleOnce_readsTheCpusAndTheAffinity(self):
        s = threadcpu.sample_once(os.getpid())
        self.assertIn("0", s["cpus"])
        self.assertEqual(len(s["cpus"]["0"]), len(threadcpu.CPU_FIELDS))
        self.assertIn("0", threadcpu.cpu_list(s["affinity"]))

    def test_bracket_picksTheSamplesAroundAWindow(self):
        s = [{"t": t, "proc": 0, "threads": []} for t in (1000, 2000, 3000, 4000)]
        a, b = threadcpu.bracket(s, 2500, 3900)
        self.assertEqual((a["t"], b["t"]), (2000, 3000))
        self.assertEqual(threadcpu.bracket(s, 5000, 6000), (s[-1], None))


def loadgen_report(started, points, level):
    return {"startedAt": started, "scenarioName": "ref-5000", "stoppedBy": "all 1 levels passed",
            "summary": {"users": 5000, "rooms": 100, "loggedIn": 5000, "joined": 5000, "deliveries": 100,
                        "expectedDeliveries": 100, "lost": 0, "errors": 0, "serverCpuUsPerDelivery": 30.0,
                        "serverRssMbMax": 900.0, "latencyMs": {"p50": 1, "p99": 2, "p999": 3, "max": 4}},
            "levels": [level], "series": points}


class SummarizeOpenfireTest(unittest.TestCase):
    def test_levelWindow_worstSecond_andStallsBeforeIt(self):
        with tempfile.TemporaryDirectory() as out:
            os.makedirs(os.path.join(out, "loadgen"))
            started = "2026-11-28T09:30:00.000123456Z"
            points = [{"t": 1.0, "phase": "warm-up 175 msg/s", "maxMs": 900.0, "p99Ms": 1.0},
                      {"t": 2.0, "phase": "level 1/1 175 msg/s", "maxMs": 20.0, "p99Ms": 5.0},
                      {"t": 3.0, "phase": "level 1/1 175 msg/s", "maxMs": 250.0, "p99Ms": 40.0, "deliveriesPerSec": 16000},
                      {"t": 4.0, "phase": "level 1/1 175 msg/s", "maxMs": 30.0, "p99Ms": 6.0},
                      {"t": 5.0, "phase": "ramp-down", "maxMs": 5000.0}]
            level = {"kind": "level", "ratePerSec": 175, "seconds": 3.0, "deliveriesPerSec": 16400, "p50Ms": 3,
                     "p99Ms": 30, "p999Ms": 200, "maxMs": 250, "serverCpuUsPerDelivery": 28.5}
            with open(os.path.join(out, "loadgen", "run.json"), "w") as f:
                json.dump(loadgen_report(started, points, level), f)
            with open(os.path.join(out, "gc.log"), "w") as f:
                # a 200 ms safepoint ending 100 ms into the worst second (it ends at T0 + 3000), one long before
                f.write("[%s][1s][info][safepoint] Safepoint \"G1CollectForAllocation\", Time since last: 1 ns, "
                        "Reaching safepoint: 1 ns, At safepoint: 1 ns, Total: 200000000 ns\n" % iso(T0 + 2100))
                f.write("[%s][1s][info][gc] GC(1) Pause Young (Normal) (G1 Evacuation Pause) 1M->1M(1M) 199.000ms\n" % iso(T0 + 2099))
                f.write("[%s][1s][info][safepoint] Safepoint \"Cleanup\", Time since last: 1 ns, "
                        "Reaching safepoint: 1 ns, At safepoint: 1 ns, Total: 1000000 ns\n" % iso(T0 + 500))
            with open(os.path.join(out, "loadgen-gc.log"), "w") as f:
                # the generator's own young pause inside the worst second, and one outside the level
                f.write("[%s][2s][info][gc] GC(7) Pause Young (Allocation Failure) 9M->1M(50M) 18.500ms\n" % iso(T0 + 2900))
                f.write("[%s][1s][info][gc] GC(6) Pause Young (Allocation Failure) 9M->1M(50M) 40.000ms\n" % iso(T0 + 200))
            with open(os.path.join(out, "threads.jsonl"), "w") as f:
                for i, t in enumerate((T0 + 1000, T0 + 2000, T0 + 3000, T0 + 4000)):
                    f.write(json.dumps({"t": t, "proc": i * 500_000_000, "threads": [
                        [1, "G1 Conc#0", i * 100_000_000, 0], [2, "mucscale-room-0", i * 400_000_000, i * 1_000_000]]}) + "\n")
            sm, text = summarize_openfire.summarize_run(out, "g1-low-pause", "sysconfig")
            self.assertEqual(sm["levelWindow"], {"startMs": T0 + 1000, "endMs": T0 + 4000})
            self.assertEqual(sm["gcPausesLogMs"]["count"], 1)          # the warm-up's safepoint is outside
            self.assertEqual(sm["safepointMs"]["count"], 1)
            self.assertIn("G1CollectForAllocation", sm["longestSafepoint"])
            w = sm["worstSecond"]
            self.assertEqual((w["endMs"], w["maxMs"]), (T0 + 3000, 250.0))  # not the warm-up's 900 or ramp-down's 5000
            self.assertEqual(w["safepointMaxMs"], 200.0)
            self.assertEqual(w["gcPauses"], 1)
            # the 1 ms safepoint at T0 + 500 ended before the window [T0 + 1750, T0 + 3000]; it is outside the level
            # window too, so it is not among the events at all
            self.assertEqual(w["safepointMaxMs5sBefore"], 0.0)
            second = sm["worstSeconds"][1]                                   # the second ending at T0 + 4000, max 30
            self.assertEqual((second["endMs"], second["safepoints"]), (T0 + 4000, 0))
            self.assertEqual(second["safepointMaxMs5sBefore"], 200.0)         # 2100 is 870 ms before T0 + 2970
            self.assertEqual(second["safepointMaxMs5sBeforeEndedMsBefore"], 870)
            self.assertEqual(sm["threadCpu"]["processCpuMs"], 1500.0)
            self.assertEqual(sm["threadCpu"]["gcCpuShare"], 0.2)
            self.assertEqual(sm["threadCpu"]["categories"]["mucscale"]["runQueueWaitMs"], 3.0)
            self.assertEqual(sm["serverCpuUsPerDelivery"], 28.5)
            self.assertIn("worst second max 250.0 ms", text)
            self.assertTrue(os.path.exists(os.path.join(out, "summary.txt")))
            self.assertIsNone(sm["coreBySecond"])                      # these samples have no CPU fields
            self.assertEqual((w["generatorGcPauses"], w["generatorGcPauseMaxMs"]), (1, 18.5))
            self.assertEqual(second["generatorGcPauses"], 0)
            self.assertEqual((sm["generatorGcPausesMs"]["count"], sm["generatorGcPausesMs"]["max"]), (1, 18.5))
            self.assertIn("the generator's GC pauses 1, max 18.500 ms", text)
            self.assertIn("1 of the 3 worst seconds had one", text)
            # table.py gives an Openfire session its own per-run table
            session = os.path.join(out, "session")
            os.makedirs(os.path.join(session, "1-g1-low-pause"))
            with open(os.path.join(session, "1-g1-low-pause", "summary.json"), "w") as f:
                json.dump(sm, f)
            table = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "table.py"),
                                    session], check=True, capture_output=True, text=True).stdout
            self.assertIn("| 1-g1-low-pause | g1-low-pause |", table)
            self.assertIn("| 250.0 / 200.0 |", table)
            self.assertIn("| 20.0% |", table)

    def test_coreBySecond_comparesTheWorstSecondsWithAll(self):
        lg = loadgen_report("2026-11-28T09:30:00Z", [
            {"t": 1.0, "phase": "level 1/1 180 msg/s", "maxMs": 5.0},
            {"t": 2.0, "phase": "level 1/1 180 msg/s", "maxMs": 90.0},
            {"t": 3.0, "phase": "level 1/1 180 msg/s", "maxMs": 6.0}], {"kind": "level"})
        # per second on CPU 0: the JVM 300 ms; softirq 100 ms, but 500 ms in the second ending at T0 + 2000
        softirq, idle = [0, 10, 60, 70], [0, 60, 80, 140]     # ticks so far: idle is what is left of each second
        samples = [{"t": T0 + i * 1000, "proc": i * 300_000_000, "threads": [], "affinity": "0",
                    "cpus": {"0": [i * 30, 0, 0, idle[i], 0, 0, softirq[i], 0]}}
                   for i in range(4)]
        cb = summarize_openfire.core_by_second(lg, samples, worst_n=1)
        self.assertEqual((cb["seconds"], cb["worstN"], cb["worstMaxMs"]), (3, 1, [90.0]))
        self.assertEqual(cb["worst"]["softirqMs"], 500.0)
        self.assertEqual(cb["worst"]["otherMs"], 500.0)
        self.assertEqual(cb["all"]["softirqMs"], round(700 / 3, 1))
        self.assertEqual(cb["all"]["jvmMs"], 300.0)
        self.assertEqual((cb["worst"]["idleMs"], cb["all"]["idleMs"]), (200.0, round(1400 / 3, 1)))
        self.assertIn("softirq 233/500", summarize_openfire.core_text(cb))


if __name__ == "__main__":
    unittest.main()

package org.mucscale.loadgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;

/**
 * A barrier of a sharded {@link LoadRun}: this process writes {@code shard-<k>-of-<n>.<tag>} (its wall clock in ms,
 * written to a temporary name and renamed, so a reader never sees half of it) into run.barrierDir, waits until all n
 * files are there, and then all go on at the same wall-clock moment: {@code offsetMs} after the latest of them.
 * Two are used: "ready" (everyone joined; sending starts 2 s later) and "drained" (everyone's own deliveries are
 * in, so nobody leaves the rooms while another process's last messages are still on their way). Bounded by the
 * run's deadline; a process whose partners never come goes on alone, and says so.
 *
 * <p>Owner: the run's main thread; the files are the only state shared with the other processes.
 */
final class ShardBarrier {
    private final LoadRun run;
    private final Path dir;

    ShardBarrier(LoadRun run, Path dir) {
        this.run = run;
        this.dir = dir;
    }

    /** Writes this shard's time for {@code tag}, waits for all, then until {@code offsetMs} after the latest. */
    void await(String tag, long offsetMs) {
        run.phase("barrier " + tag);
        try {
            Files.createDirectories(dir);
            Path file = barrierFile(run.shardIndex, tag);
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, Long.toString(System.currentTimeMillis()));
            Files.move(tmp, file,
                    StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            run.stats.error("barrier-write");
            run.say("barrier: cannot write to " + dir + ": " + e);
            return;
        }
        long latest = -1;
        while (!run.pastDeadline()) {
            latest = latestReady(tag);
            if (latest >= 0) {
                break;
            }
            LockSupport.parkNanos(50_000_000);
        }
        if (latest < 0) {
            run.stats.error("barrier-timeout:" + tag);
            run.say("barrier " + tag + ": not every shard got there before the deadline; going on alone");
            return;
        }
        long startMs = latest + offsetMs;
        run.say("barrier " + tag + ": all " + run.shardCount + " shards there; going on at " + Instant.ofEpochMilli(startMs));
        long waitMs;
        while ((waitMs = startMs - System.currentTimeMillis()) > 0 && !run.pastDeadline()) {
            LockSupport.parkNanos(Math.min(waitMs, 50) * 1_000_000L);
        }
    }

    /** Where shard {@code k} writes its time for barrier {@code tag}. */
    private Path barrierFile(int k, String tag) {
        return dir.resolve("shard-" + k + "-of-" + run.shardCount + "." + tag);
    }

    /** The latest time written under {@code tag} by the n shards in {@code dir}, or -1 while one is missing. */
    private long latestReady(String tag) {
        long latest = 0;
        for (int k = 0; k < run.shardCount; k++) {
            Path f = barrierFile(k, tag);
            try {
                latest = Math.max(latest, Long.parseLong(Files.readString(f).trim()));
            } catch (IOException | NumberFormatException e) {
                return -1;
            }
        }
        return latest;
    }
}

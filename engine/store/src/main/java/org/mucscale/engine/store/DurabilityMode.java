package org.mucscale.engine.store;

/** How much a room log record survives before the database has it. */
public enum DurabilityMode {
    /**
     * Records live in memory until their batch commits; a clean shutdown drains and spills, a kill -9 loses what was
     * queued (at most one batch age's worth).
     */
    BATCHED,
    /**
     * Each record is appended to a local write-ahead file and fsynced (group commit) before the caller broadcasts it,
     * so a kill -9 loses nothing any occupant received; the file is replayed on start.
     */
    WRITE_AHEAD_LOG
}

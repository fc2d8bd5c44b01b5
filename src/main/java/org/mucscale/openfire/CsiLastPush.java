package org.mucscale.openfire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import org.jivesoftware.openfire.csi.CsiManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews a session's client-state-indication last-push time when mucscale writes to it raw, as Openfire 5.1's own
 * delivery does.
 *
 * <p>Why: Openfire's {@code CsiManager.queueOrPush}, which every stanza Openfire delivers to a client passes, sets its
 * private {@code lastPush} to now whenever it pushes (for an active client: every stanza), and for an inactive client
 * pushes its whole queue as soon as a stanza comes more than {@code xmpp.client.csi.delay.max-duration} (10 minutes)
 * after that time. mucscale's raw writes bypass {@code queueOrPush}, and Openfire has no public way to renew the time,
 * so without this a client served raw for longer than that, then going inactive, had its first delayable stanza
 * pushed at once instead of queued. Renewed here at the moment mucscale decides to write raw (under the CSI manager's
 * monitor, as {@code queueOrPush} decides and sets it), the timer runs from the last stanza the client got, whichever
 * path it took.
 *
 * <p>Cost: the time is one {@link Instant} per room-thread batch ({@link EventLoopWriteBatches#pushTime}), shared by
 * every session in it, so a copy allocates nothing; a session already renewed in the batch costs one field read and
 * a reference compare. The time never moves back: an Openfire push after the batch began stays as Openfire set it.
 * The field is Openfire's private one, found by name once; when it is not there (another Openfire), {@link #resolve}
 * answers null and the time is not renewed: what Openfire delays for an inactive client may then be pushed sooner
 * after raw writes, never later.
 *
 * <p>Concurrency: immutable; the caller of {@link #renew} holds the CSI manager's monitor.
 */
final class CsiLastPush {
    private static final Logger LOG = LoggerFactory.getLogger(CsiLastPush.class);

    private final VarHandle lastPush;

    private CsiLastPush(VarHandle lastPush) {
        this.lastPush = lastPush;
    }

    /** The renewer for this Openfire, or null when its CSI manager is not laid out as 5.1's (logged once). */
    static CsiLastPush resolve() {
        try {
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(CsiManager.class, MethodHandles.lookup());
            return new CsiLastPush(l.findVarHandle(CsiManager.class, "lastPush", Instant.class));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.info("MUC Scale: this Openfire's client state indication manager is not laid out as 5.1's ({}); raw "
                    + "writes do not renew its last-push time, so an inactive client may get delayed stanzas sooner",
                    e.toString());
            return null;
        }
    }

    /** Sets {@code csi}'s last push to {@code now} unless it is that already or later. The caller holds its monitor. */
    void renew(CsiManager csi, Instant now) {
        Instant current = (Instant) lastPush.get(csi);
        if (current != now && (current == null || current.isBefore(now))) {
            lastPush.set(csi, now);
        }
    }
}

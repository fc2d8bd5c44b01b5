package org.mucscale.openfire;

import java.util.concurrent.atomic.LongAdder;
import org.jivesoftware.openfire.streammanagement.StreamManager;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;

/**
 * Counts, at its write on the event loop, a stanza that a room thread decided to write uncounted because its session's
 * stream manager was off, when the client has enabled stream management since (XEP-0198 allows {@code <enable/>} at
 * any time after binding; a client that logs in again with the resource of an occupant gets the room's stanzas
 * from its first moment, before it enables).
 *
 * <p>Why: Openfire's {@code StreamManager.enable} sets the namespace under the manager's monitor and then writes
 * {@code <enabled/>}. A stanza decided uncounted on a room thread and written later, after {@code <enabled/>}, is
 * counted by the client and not by the server; at the client's next {@code <a h=…/>} Openfire closes the stream
 * ("Client acknowledges stanzas that we didn't send"). Seen once in a benchmark (h 12, last 11), shown by
 * {@code RealOpenfireIT#streamManagementEnabledLate_heldStanzasCounted}.
 *
 * <p>The rule, checked at each write of an uncounted stanza into its channel (a plain batch, an uncounted managed run,
 * or a slow recipient's held stanza as it drains), on the channel's event loop: if the session's stream manager is
 * enabled now, the stanza is counted now, under its monitor, and the {@code <r/>} this makes due is written right after
 * it. Reading "off" without the monitor is exact: Openfire writes {@code <enabled/>} from another thread, so it reaches
 * this event loop as a task queued after the namespace was set; if it was queued before the write in hand, the queue's
 * hand-over makes the namespace visible here, and if it was not, it is written after this stanza, which the client
 * then does not count. Reading "on" while {@code <enabled/>} is still to come makes the server count a stanza the
 * client does not: the server expects more than the client acknowledges, which Openfire accepts (its own stanzas have
 * the same window), and a resumption resends it once more.
 *
 * <p>Not exact: a stanza counted here takes the next number, after stanzas other threads counted since the enable but
 * that reach the wire after it (a slow recipient's held counted stanzas, or a batch queued behind this one). The
 * totals agree, so Openfire never closes the stream; only a resumption before the client acknowledged them could
 * resend the wrong one of such a pair. It needs a client that gets room stanzas before it enables stream management.
 *
 * <p>Concurrency: the counting state is made per call (rare); the counter is a {@link LongAdder}.
 */
final class LateCounts {
    private final LongAdder counted = new LongAdder();
    private volatile RenderedPackets packets;
    private volatile UnackedStanzas unacked;

    /** Where counted stanzas' kept copies come from; until set, nothing is counted late (no Openfire). */
    void manageWith(RenderedPackets packets, UnackedStanzas unacked) {
        this.unacked = unacked;
        this.packets = packets;
    }

    /** Whether a stanza handed to {@link #count} is counted (this runs inside Openfire). */
    boolean counts() {
        return packets != null;
    }

    /**
     * Counts {@code stanza} with {@code sm}, whose stream management the caller found enabled, and returns the
     * {@code <r/>} to write right after it, or null (none due, or Openfire wrote it).
     */
    RenderedStanza count(StreamManager sm, RenderedStanza stanza, Jid recipient) {
        RenderedPackets p = packets;
        if (p == null) {
            return null;
        }
        synchronized (sm) {
            counted.increment();
            return new StanzaCounter(p, unacked).refresh().count(sm, stanza, recipient);
        }
    }

    /** Stanzas counted at their write because stream management was enabled after they were decided. */
    long countedAtWrite() {
        return counted.sum();
    }
}

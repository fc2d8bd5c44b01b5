package org.mucscale.loadgen;

/**
 * XEP-0352 for one client, as a mobile client in the background plays it: when the server advertises
 * {@code <csi xmlns='urn:xmpp:csi:0'/>}, the client goes {@code <inactive/>} for csiInactiveS, then {@code <active/>}
 * for csiActiveS, and so on, starting at a random point of its first active period so clients do not toggle in step.
 *
 * <p>Concurrency: the timer thread toggles ({@link #toggleIfDue}); the delivery path on the processor thread reads
 * {@link #holdsBack} through the two volatile fields.
 */
final class ClientStateIndication {
    static final String NS = "urn:xmpp:csi:0";
    private static final String INACTIVE = "<inactive xmlns='" + NS + "'/>";
    private static final String ACTIVE = "<active xmlns='" + NS + "'/>";

    private final Client client;
    private final long inactiveNs;
    private final long activeNs;
    private final long firstOffsetNs;
    private volatile boolean offered;
    private volatile boolean inactive;
    /** {@link LoadRun#nowUs} when the client last sent {@code <active/>}; 0 before. */
    private volatile long activeAgainUs;
    /** Timer thread only. */
    private long nextToggleNs;
    long toggles;

    ClientStateIndication(Client client, int inactiveS, int activeS, double firstOffsetFraction) {
        this.client = client;
        this.inactiveNs = inactiveS * 1_000_000_000L;
        this.activeNs = activeS * 1_000_000_000L;
        this.firstOffsetNs = (long) (firstOffsetFraction * activeNs);
    }

    /** After bind: whether the server advertises CSI (without it this client never toggles). */
    void loggedIn(String features) {
        offered = features != null && features.contains(NS);
        if (!offered) {
            client.run.stats.error("csi-not-offered");
        }
    }

    /**
     * Whether a delivery scheduled at {@code scheduledUs} may have been held back by the server's CSI queue: it
     * arrives while the client is inactive, or it was scheduled before the client last went active again.
     */
    boolean holdsBack(long scheduledUs) {
        return inactive || scheduledUs < activeAgainUs;
    }

    /** Timer thread: sends the next toggle when it is due; only while the client is in its room. */
    void toggleIfDue(long nowNs) {
        if (!offered || !client.isJoined()) {
            return;
        }
        if (nextToggleNs == 0) {
            nextToggleNs = nowNs + firstOffsetNs;
            return;
        }
        if (nowNs - nextToggleNs < 0) {
            return;
        }
        if (inactive) {
            activeAgainUs = client.run.nowUs(); // before the write: what was scheduled before it may come late
            inactive = false;
            client.write(ACTIVE);
            nextToggleNs = nowNs + activeNs;
        } else {
            inactive = true;
            client.write(INACTIVE);
            nextToggleNs = nowNs + inactiveNs;
        }
        toggles++;
    }
}

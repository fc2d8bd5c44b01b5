package org.mucscale.loadgen;

/**
 * The receive side of the measurement for one groupchat message: finds the stamp {@code ~lg~slot.seq.scheduledUs~}
 * in the body, matches it to the sender's sequence (so a repeat counts as a duplicate, not as a delivery) and records
 * the latency against the scheduled send time in the receiving client's profile. Allocation-free.
 *
 * <p>Runs on the receiving connection's MINA processor thread (the only writer of its {@link SeqTracker}).
 */
final class Delivery {
    private static final byte[] STAMP_MARK = Bytes.ascii("~lg~");
    private static final byte[] ERROR_MARK = Bytes.ascii("<error");
    private static final byte[] ERROR_TYPE_SQ = Bytes.ascii("type='error'");
    private static final byte[] ERROR_TYPE_DQ = Bytes.ascii("type=\"error\"");

    private Delivery() {
    }

    static void received(Client c, byte[] b, int start, int end, int startTagEnd) {
        LoadRun run = c.run;
        int at = Bytes.indexOf(b, startTagEnd, end, STAMP_MARK);
        if (at < 0 || isErrorType(b, start, startTagEnd)) {
            if (isErrorType(b, start, startTagEnd)) {
                run.stats.error("message-error:" + Bytes.firstChildNameAfter(b, start, end, ERROR_MARK));
            }
            return; // no stamp: e.g. room subject or server notices
        }
        int[] parseEnd = c.parseEnd;
        int p = at + STAMP_MARK.length;
        int senderSlot = (int) Bytes.parseDecimal(b, p, end, parseEnd);
        p = parseEnd[0];
        if (p < 0 || b[p] != '.') {
            run.stats.error("bad-stamp");
            return;
        }
        int seq = (int) Bytes.parseDecimal(b, p + 1, end, parseEnd);
        p = parseEnd[0];
        if (p < 0 || b[p] != '.') {
            run.stats.error("bad-stamp");
            return;
        }
        long scheduledUs = Bytes.parseDecimal(b, p + 1, end, parseEnd);
        if (parseEnd[0] < 0) {
            run.stats.error("bad-stamp");
            return;
        }
        long nowUs = run.nowUs();
        if (senderSlot == c.slot) {
            run.stats.echoes.increment();
            return;
        }
        SeqTracker t = c.tracker();
        if (t == null || senderSlot >= t.slots()) {
            run.stats.error("delivery-outside-plan");
            return;
        }
        Stats st = run.stats;
        st.deliveries.increment();
        switch (t.record(senderSlot, seq)) {
            case SeqTracker.DUPLICATE -> {
                st.duplicates.increment();
                c.profile.duplicates.increment();
                return;
            }
            case SeqTracker.REORDERED -> st.reordered.increment();
            case SeqTracker.LATE_BEYOND_WINDOW -> {
                st.reordered.increment();
                st.lateBeyondWindow.increment();
            }
            default -> {
            }
        }
        st.distinctDeliveries.increment();
        if (!run.plays(c.room, senderSlot)) {
            st.remoteDeliveries.increment();
        }
        long latency = Math.max(0, nowUs - scheduledUs);
        // only deliveries nothing legitimately holds back go into the run's latency (and so the levels' p99)
        if (c.profile.record(c, b, startTagEnd, end, scheduledUs, latency) == ClientProfile.ACTIVE) {
            st.deliveryUs.recordValue(latency);
        }
    }

    static boolean isErrorType(byte[] b, int start, int startTagEnd) {
        return Bytes.contains(b, start, startTagEnd, ERROR_TYPE_SQ) || Bytes.contains(b, start, startTagEnd, ERROR_TYPE_DQ);
    }
}

package org.mucscale.engine.muc;

/**
 * Which forward a stanza is, as the cluster's ordered links number it: the {@code seq}-th message {@code sender}
 * (in its run {@code epoch}) sent to {@code owner}. A room thread keeps, per room, the newest it handled of each
 * (owner, sender) link ({@link AcceptedMarks}), so that a new owner can tell a resend its predecessor handled already
 * (docs/cluster-protocol.md, I5 and section 6, "accepted marks").
 */
public record Forwarded(String owner, String sender, long epoch, long seq) {

    /** The key of this forward's link in a room's marks. */
    String link() {
        return owner + '\u0000' + sender;
    }
}

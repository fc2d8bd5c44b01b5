package org.mucscale.engine.runtime;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.mucscale.engine.muc.RoomLogSink;
import org.mucscale.engine.store.ReviewQueue;

/**
 * The review queue's admin page, host-independent (the Openfire adapter's servlet only passes requests through):
 * the waiting flagged messages, oldest first, each with "Retract" (through the room: every occupant is told, the
 * tombstone replaces it in history and log) and "Dismiss" (the message stands). Thread-safe; blocking (servlet
 * threads only).
 */
public final class ReviewAdmin {
    /** Rows shown at most. */
    static final int PAGE_ROWS = 200;

    private ReviewAdmin() {
    }

    /** The page for the engine's current queue; {@code csrf} goes into every form, {@code notice} above the table. */
    public static String page(MucScaleEngine engine, String csrf, String notice) throws Exception {
        if (engine == null || engine.store() == null) {
            return html(List.of(), csrf, "The room log is off, so there is no review queue.", false);
        }
        boolean on = engine.settings().get(org.mucscale.engine.filter.FilterSettings.REVIEW_QUEUE);
        return html(engine.store().review().waiting(null, PAGE_ROWS), csrf, notice, on);
    }

    /**
     * Applies one form submission: {@code action} retract or dismiss, {@code room}, {@code id} and, for retract, an
     * optional {@code reason}. Returns the notice to show; throws {@link IllegalArgumentException} with a clear text
     * for bad input.
     */
    public static String act(MucScaleEngine engine, Map<String, String> form) throws Exception {
        String action = form.get("action");
        String room = form.get("room");
        String id = form.get("id");
        if (room == null || room.isBlank() || id == null || id.isBlank()) {
            throw new IllegalArgumentException("a room and a message id are required");
        }
        if (engine == null || engine.store() == null) {
            throw new IllegalStateException("the room log is off");
        }
        if ("dismiss".equals(action)) {
            return engine.store().review().remove(room, id) ? "Dismissed: the message stays."
                    : "That message is no longer waiting for review.";
        }
        if ("retract".equals(action)) {
            String reason = form.get("reason");
            RoomLogSink.Retraction outcome = engine.retractReviewed(room, id, reason);
            return switch (outcome) {
                case RETRACTED -> "Retracted: every occupant was told, history and archive keep a tombstone.";
                case ALREADY_RETRACTED -> "That message was retracted already.";
                case NOT_FOUND -> "No such message in the room log; removed from the queue.";
            };
        }
        throw new IllegalArgumentException("unknown action '" + action + "': retract or dismiss");
    }

    static String html(List<ReviewQueue.Entry> entries, String csrf, String notice, boolean on) {
        StringBuilder sb = new StringBuilder(4096);
        sb.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>MUC Scale review queue</title>")
                .append("<meta name=\"pageID\" content=\"mucscale-review\"></head><body>")
                .append("<h1>Messages waiting for review</h1>");
        if (!on) {
            sb.append("<p>The review queue is off (<code>mucscale.filter.review-queue</code>); flagged messages are only"
                    + " logged.</p>");
        }
        if (notice != null && !notice.isBlank()) {
            sb.append("<p class=\"notice\">").append(escape(notice)).append("</p>");
        }
        if (entries.isEmpty()) {
            sb.append("<p>Nothing is waiting.</p></body></html>");
            return sb.toString();
        }
        sb.append("<table class=\"jive-table\"><thead><tr><th>Time</th><th>Room</th><th>Sender</th><th>Message</th>")
                .append("<th>Matched</th><th></th></tr></thead><tbody>");
        for (ReviewQueue.Entry e : entries) {
            sb.append("<tr><td>").append(Instant.ofEpochMilli(e.logTimeMillis())).append("</td><td>")
                    .append(escape(e.roomJid())).append("</td><td>").append(escape(e.senderNick()));
            if (e.senderJid() != null) {
                sb.append(" (").append(escape(e.senderJid())).append(')');
            }
            sb.append("</td><td>").append(escape(e.body() == null ? "" : e.body())).append("</td><td>")
                    .append(escape(e.terms() == null ? "" : e.terms())).append("</td><td>");
            form(sb, csrf, e, "retract", "Retract",
                    "<input name=\"reason\" placeholder=\"reason (optional)\" maxlength=\"500\">");
            form(sb, csrf, e, "dismiss", "Dismiss", "");
            sb.append("</td></tr>");
        }
        sb.append("</tbody></table></body></html>");
        return sb.toString();
    }

    private static void form(StringBuilder sb, String csrf, ReviewQueue.Entry e, String action, String label,
                             String extra) {
        sb.append("<form method=\"post\" style=\"display:inline\"><input type=\"hidden\" name=\"csrf\" value=\"")
                .append(escape(csrf == null ? "" : csrf)).append("\"><input type=\"hidden\" name=\"action\" value=\"")
                .append(action).append("\"><input type=\"hidden\" name=\"room\" value=\"").append(escape(e.roomJid()))
                .append("\"><input type=\"hidden\" name=\"id\" value=\"").append(escape(e.stanzaId())).append("\">")
                .append(extra).append("<button type=\"submit\">").append(label).append("</button></form>");
    }

    /** HTML text and attribute escaping. */
    static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }
}

package org.mucscale.engine.runtime;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.mucscale.engine.metrics.Html;
import org.mucscale.engine.muc.RoomLogSink;
import org.mucscale.engine.store.ReviewQueue;

/**
 * The review queue's admin page, host-independent (the Openfire adapter's servlet only passes requests through):
 * the waiting flagged messages, oldest first, each with "Retract" (through the room: every occupant is told, the
 * tombstone replaces it in history and log), "Retract and add term" (the same, and the term, prefilled with the
 * matched terms, joins that room's own filter list in the same step) and "Dismiss" (the message stands).
 * Thread-safe; blocking (servlet threads only).
 */
public final class ReviewAdmin {
    /** Rows shown at most. */
    static final int PAGE_ROWS = 200;
    /** How long the action waits for the filter's compile thread. */
    static final long COMPILE_WAIT_SECONDS = 60;

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
     * Applies one form submission: {@code action} retract, retract-add-term or dismiss, {@code room}, {@code id},
     * for the retractions an optional {@code reason} and, for retract-add-term, {@code term} (one term or several,
     * comma-separated, as list entries: "cheater", "noob*"). Retract-add-term adds the terms first: a bad term, an id
     * not waiting for review or an off filter refuse the whole action and nothing is retracted. Returns the notice to show; throws {@link IllegalArgumentException} with a clear text
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
        if ("retract-add-term".equals(action)) {
            return retractAndAddTerm(engine, room, id, form.get("reason"), form.get("term"));
        }
        throw new IllegalArgumentException("unknown action '" + action + "': retract, retract-add-term or dismiss");
    }

    private static String retractAndAddTerm(MucScaleEngine engine, String room, String id, String reason,
                                            String termField) throws Exception {
        List<String> terms = new java.util.ArrayList<>();
        for (String t : termField == null ? new String[0] : termField.split(",")) {
            if (!t.isBlank()) {
                terms.add(t.strip());
            }
        }
        if (terms.isEmpty()) {
            throw new IllegalArgumentException("a term to add to the room's list is required");
        }
        org.mucscale.engine.filter.ContentFilter filter = engine.filter();
        if (filter == null) {
            throw new IllegalStateException("the content filter is not running");
        }
        if (!engine.store().review().isWaiting(room, id)) {
            throw new IllegalArgumentException("message '" + id + "' of room '" + room
                    + "' is not waiting for review; nothing was changed");
        }
        org.mucscale.engine.filter.CompileReport report;
        try {
            report = filter.addRoomTerms(room, terms).get(COMPILE_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof IllegalArgumentException bad) {
                throw new IllegalArgumentException(bad.getMessage() + "; nothing was retracted", bad);
            }
            throw new IllegalStateException("the term was not added (" + e.getCause() + "); nothing was retracted",
                    e.getCause());
        }
        RoomLogSink.Retraction outcome = engine.retractReviewed(room, id, reason);
        String added = "'" + String.join("', '", terms) + "' now in the room's filter list"
                + (report.warnings().isEmpty() ? "" : " (" + String.join("; ", report.warnings()) + ")")
                + (filter.config().policyFile() == null ? ", kept in memory until a restart: set"
                + " mucscale.filter.policy-file to keep room policies." : ".");
        return switch (outcome) {
            case RETRACTED -> "Retracted: every occupant was told, history and archive keep a tombstone; " + added;
            case ALREADY_RETRACTED -> "That message was retracted already; " + added;
            case NOT_FOUND -> "No such message in the room log; removed from the queue; " + added;
        };
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
            sb.append("<p class=\"notice\">").append(Html.escape(notice)).append("</p>");
        }
        if (entries.isEmpty()) {
            sb.append("<p>Nothing is waiting.</p></body></html>");
            return sb.toString();
        }
        sb.append("<table class=\"jive-table\"><thead><tr><th>Time</th><th>Room</th><th>Sender</th><th>Message</th>")
                .append("<th>Matched</th><th></th></tr></thead><tbody>");
        for (ReviewQueue.Entry e : entries) {
            sb.append("<tr><td>").append(Instant.ofEpochMilli(e.logTimeMillis())).append("</td><td>")
                    .append(Html.escape(e.roomJid())).append("</td><td>").append(Html.escape(e.senderNick()));
            if (e.senderJid() != null) {
                sb.append(" (").append(Html.escape(e.senderJid())).append(')');
            }
            sb.append("</td><td>").append(Html.escape(e.body() == null ? "" : e.body())).append("</td><td>")
                    .append(Html.escape(e.terms() == null ? "" : e.terms())).append("</td><td>");
            form(sb, csrf, e, "retract", "Retract",
                    "<input name=\"reason\" placeholder=\"reason (optional)\" maxlength=\"500\">");
            form(sb, csrf, e, "retract-add-term", "Retract and add term",
                    "<input name=\"reason\" placeholder=\"reason (optional)\" maxlength=\"500\">"
                            + "<input name=\"term\" required maxlength=\"500\" value=\""
                            + Html.escape(e.terms() == null ? "" : e.terms()) + "\" title=\"terms for this room's filter"
                            + " list, comma-separated (noob* matches words starting so)\">");
            form(sb, csrf, e, "dismiss", "Dismiss", "");
            sb.append("</td></tr>");
        }
        sb.append("</tbody></table></body></html>");
        return sb.toString();
    }

    private static void form(StringBuilder sb, String csrf, ReviewQueue.Entry e, String action, String label,
                             String extra) {
        sb.append("<form method=\"post\" style=\"display:inline\"><input type=\"hidden\" name=\"csrf\" value=\"")
                .append(Html.escape(csrf == null ? "" : csrf)).append("\"><input type=\"hidden\" name=\"action\" value=\"")
                .append(action).append("\"><input type=\"hidden\" name=\"room\" value=\"").append(Html.escape(e.roomJid()))
                .append("\"><input type=\"hidden\" name=\"id\" value=\"").append(Html.escape(e.stanzaId())).append("\">")
                .append(extra).append("<button type=\"submit\">").append(label).append("</button></form>");
    }
}

package org.mucscale.openfire;

import java.util.List;
import org.mucscale.engine.config.Setting;

/** Settings of the Openfire adapter itself (the engine's capabilities declare their own). */
public final class OpenfireSettings {
    private OpenfireSettings() {
    }

    public static final Setting<String> SUBDOMAIN = Setting.ofString("mucscale.openfire.subdomain", "mucscale", false,
            "Subdomain of the server's XMPP domain on which the MUC Scale group chat service is reachable "
                    + "(e.g. mucscale.example.org).",
            OpenfireSettings::subdomainProblem);

    public static final Setting<Boolean> DIRECT_LOCAL_DELIVERY = Setting.ofBoolean(
            "mucscale.openfire.direct-local-delivery", true, true,
            "Deliver the service's messages and presences to local client sessions directly (privacy lists, outgoing "
                    + "interceptors and stream management still apply) instead of through Openfire's message router.");

    public static final Setting<Boolean> RAW_LOCAL_DELIVERY = Setting.ofBoolean(
            "mucscale.openfire.raw-local-delivery", true, true,
            "With direct local delivery, write the service's pre-rendered stanza text straight to a local client's connection when nothing in Openfire would act on the copy but stream management or client state indication (no privacy or block list, no packet interceptor but mucscale's own and Openfire's incoming-only ones); otherwise the copy goes through the session as a packet. WebSocket and BOSH clients get the text with its jabber:client namespace.");

    public static final Setting<Boolean> BATCHED_WRITES = Setting.ofBoolean(
            "mucscale.openfire.batched-writes", true, true,
            "With raw local delivery, gather a room thread's deliveries per network event loop and hand each event loop one batch (written through the connection's full Netty pipeline, one flush per connection) instead of two thread hand-offs per delivery through Openfire's connection.");

    public static final Setting<Boolean> RAW_STREAM_MANAGED = Setting.ofBoolean(
            "mucscale.openfire.raw-stream-managed", true, true,
            "With raw local delivery, clients with stream management (XEP-0198, on by default in Smack, Conversations, Gajim, converse.js) get the rendered text too: each copy is counted by the session's stream manager as Openfire counts its own, and the copy it keeps for resending is parsed only if it is resent (resumption) or re-routed (session closed unacknowledged). Off: their copies go through the session as packets.");

    public static final Setting<Long> RECIPIENT_MAX_QUEUED_BYTES = Setting.ofLong(
            "mucscale.openfire.recipient-max-queued-bytes", 1024L * 1024, 64L * 1024, 1024L * 1024 * 1024, true,
            "With batched writes, bytes of the service's stanzas that may wait for one client that reads slowly (in "
                    + "its connection's buffer and queued behind it). Beyond it the client's oldest waiting presence "
                    + "is dropped first; when none is left the client is removed from its rooms (status 333) and what "
                    + "waited for it is dropped. Counted as mucscale.delivery.dropped and "
                    + "mucscale.delivery.slow-recipients.removed.");

    public static final Setting<Boolean> FILTER_BUILTIN_MUC = Setting.ofBoolean("mucscale.openfire.filter-builtin-muc",
            true, true,
            "Run the content filter on what clients send to Openfire's own MUC services (messages, invitations, "
                    + "room configuration forms, nicknames; once, before the room sees it).");

    public static final List<Setting<?>> ALL = List.of(SUBDOMAIN, DIRECT_LOCAL_DELIVERY, RAW_LOCAL_DELIVERY,
            BATCHED_WRITES, RAW_STREAM_MANAGED, RECIPIENT_MAX_QUEUED_BYTES, FILTER_BUILTIN_MUC);

    /** Null when {@code s} is one DNS label (letters, digits, hyphens; 1-63 characters), else what is allowed. */
    static String subdomainProblem(String s) {
        String rule = "one DNS label of 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen";
        if (s == null || s.isEmpty() || s.length() > 63 || s.charAt(0) == '-' || s.charAt(s.length() - 1) == '-') {
            return rule;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
            if (!ok) {
                return rule;
            }
        }
        return null;
    }
}

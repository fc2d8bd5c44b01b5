package org.mucscale.openfire;

import java.util.function.Supplier;
import org.jivesoftware.openfire.interceptor.InterceptorManager;
import org.jivesoftware.openfire.interceptor.PacketInterceptor;
import org.jivesoftware.openfire.interceptor.PacketRejectedException;
import org.jivesoftware.openfire.muc.MultiUserChatManager;
import org.jivesoftware.openfire.session.ClientSession;
import org.jivesoftware.openfire.session.Session;
import org.mucscale.engine.filter.ContentFilter;
import org.xmpp.packet.JID;
import org.xmpp.packet.Packet;
import org.xmpp.packet.PacketError;

/**
 * Runs mucscale's content filter on what clients send to Openfire's own MUC services (conference.example.org etc.):
 * group and private messages, invitations, room configuration forms and nicknames; {@link BuiltInMucContent} says
 * which parts of each are checked and how they are acted on.
 *
 * <p>Openfire calls a global interceptor 2 + 4N times for one groupchat message in a room of N local occupants (the
 * sender's inbound stanza, the room's N per-occupant copies routed back in with a null session, and N outgoing pairs).
 * This filter acts exactly once: inbound ({@code incoming}), before processing ({@code !processed}), on a client's own
 * stanza ({@code session instanceof ClientSession}), addressed to a room or an occupant of a registered MUC service.
 * Stanzas to anything else return after a few field checks.
 *
 * <ul>
 *   <li>MASK: every masked text is replaced in place before the room sees it (XHTML-IM removed);</li>
 *   <li>REJECT: {@link PacketRejectedException} with a {@code not-acceptable} error carrying the policy's text, which
 *       Openfire returns to the sender; the room never sees the stanza (refused nicknames and configuration forms
 *       always get this error, whatever the action);</li>
 *   <li>DROP: {@link PacketRejectedException} without an error: nobody is told (the filter counts it);</li>
 *   <li>FLAG: delivered unchanged; the filter records it (metrics and dashboard).</li>
 * </ul>
 *
 * <p>Concurrency: called on Openfire's connection threads, many at once. State is final or volatile; the filter itself
 * is safe for concurrent {@code inspect} calls.
 */
public final class BuiltInMucFilter implements PacketInterceptor {

    private final Supplier<ContentFilter> filter;
    private final MultiUserChatManager mucManager;
    /** "." + the server's XMPP domain: MUC services are subdomains of it. */
    private final String domainSuffix;
    private volatile boolean enabled;

    BuiltInMucFilter(Supplier<ContentFilter> filter, MultiUserChatManager mucManager, String xmppDomain,
                     boolean enabled) {
        this.filter = filter;
        this.mucManager = mucManager;
        this.domainSuffix = "." + xmppDomain;
        this.enabled = enabled;
    }

    /** Registers {@code interceptor} with Openfire; the handle removes it again. */
    static AutoCloseable register(BuiltInMucFilter interceptor) {
        InterceptorManager manager = InterceptorManager.getInstance();
        manager.addInterceptor(interceptor);
        return () -> manager.removeInterceptor(interceptor);
    }

    /** Turns filtering of the built-in MUC on or off (dynamic setting). */
    void enabled(boolean on) {
        this.enabled = on;
    }

    @Override
    public void interceptPacket(Packet packet, Session session, boolean incoming, boolean processed)
            throws PacketRejectedException {
        if (!incoming || processed || !enabled || !(session instanceof ClientSession)) {
            return;
        }
        JID to = packet.getTo();
        if (to == null || to.getNode() == null || !isBuiltInMucDomain(to.getDomain())) {
            return;
        }
        ContentFilter f = filter.get();
        if (f == null) {
            return;
        }
        BuiltInMucContent.Refusal refusal = BuiltInMucContent.check(f, packet.getElement(), to.toBareJID(),
                to.getResource());
        if (refusal == null) {
            return;
        }
        PacketRejectedException rejected = new PacketRejectedException("mucscale content filter");
        if (refusal.errorText() != null) {
            rejected.setRejectionError(new PacketError(PacketError.Condition.not_acceptable, PacketError.Type.modify,
                    refusal.errorText()));
        }
        throw rejected;
    }

    boolean isBuiltInMucDomain(String domain) {
        if (domain.length() <= domainSuffix.length() || !domain.endsWith(domainSuffix)) {
            return false;
        }
        return mucManager.isServiceRegistered(domain.substring(0, domain.length() - domainSuffix.length()));
    }
}

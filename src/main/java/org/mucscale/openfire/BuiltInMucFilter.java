package org.mucscale.openfire;

import java.util.function.Supplier;
import org.jivesoftware.openfire.interceptor.InterceptorManager;
import org.jivesoftware.openfire.interceptor.PacketInterceptor;
import org.jivesoftware.openfire.interceptor.PacketRejectedException;
import org.jivesoftware.openfire.muc.MultiUserChatManager;
import org.jivesoftware.openfire.session.ClientSession;
import org.jivesoftware.openfire.session.Session;
import org.mucscale.engine.filter.ContentFilter;
import org.mucscale.engine.filter.FilterVerdict;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xmpp.packet.JID;
import org.xmpp.packet.Message;
import org.xmpp.packet.Packet;
import org.xmpp.packet.PacketError;

/**
 * Runs mucscale's content filter on group messages sent to Openfire's own MUC services (conference.example.org etc.).
 *
 * <p>Openfire calls a global interceptor 2 + 4N times for one groupchat message in a room of N local occupants (the
 * sender's inbound stanza, the room's N per-occupant copies routed back in with a null session, and N outgoing pairs).
 * This filter acts exactly once: inbound ({@code incoming}), before processing ({@code !processed}), on a client's own
 * stanza ({@code session instanceof ClientSession}), a {@code groupchat} message addressed to a room of a registered
 * MUC service. Everything else returns after a few field checks, without allocating.
 *
 * <ul>
 *   <li>MASK: the body and subject are replaced by their masked text before the room sees them;</li>
 *   <li>REJECT: {@link PacketRejectedException} with a {@code not-acceptable} error carrying the policy's text, which
 *       Openfire returns to the sender; the room never sees the message;</li>
 *   <li>DROP: {@link PacketRejectedException} without an error: nobody is told (the filter counts it);</li>
 *   <li>FLAG: delivered unchanged; the filter records it (metrics and dashboard).</li>
 * </ul>
 *
 * <p>Concurrency: called on Openfire's connection threads, many at once. State is final or volatile; the filter itself
 * is safe for concurrent {@code inspect} calls.
 */
public final class BuiltInMucFilter implements PacketInterceptor {

    private static final Logger LOG = LoggerFactory.getLogger(BuiltInMucFilter.class);

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
        if (!incoming || processed || !enabled || !(session instanceof ClientSession)
                || !(packet instanceof Message message) || message.getType() != Message.Type.groupchat) {
            return;
        }
        JID to = message.getTo();
        if (to == null || to.getNode() == null || !isBuiltInMucDomain(to.getDomain())) {
            return;
        }
        ContentFilter f = filter.get();
        if (f == null) {
            return;
        }
        String body = message.getBody();
        String subject = message.getSubject();
        if (body == null && subject == null) {
            return;
        }
        FilterVerdict verdict = f.inspect(to.toBareJID(), body, subject);
        if (verdict.clean()) {
            return;
        }
        switch (verdict.action()) {
            case MASK -> {
                if (verdict.maskedBody() != null) {
                    message.setBody(verdict.maskedBody());
                }
                if (verdict.maskedSubject() != null) {
                    message.setSubject(verdict.maskedSubject());
                }
            }
            case REJECT -> {
                PacketRejectedException rejected = new PacketRejectedException("mucscale content filter");
                rejected.setRejectionError(new PacketError(PacketError.Condition.not_acceptable,
                        PacketError.Type.modify, verdict.senderError()));
                throw rejected;
            }
            case DROP -> throw new PacketRejectedException("mucscale content filter");
            case FLAG -> LOG.debug("MUC Scale flagged a message in {}", to);
            default -> {
            }
        }
    }

    boolean isBuiltInMucDomain(String domain) {
        if (domain.length() <= domainSuffix.length() || !domain.endsWith(domainSuffix)) {
            return false;
        }
        return mucManager.isServiceRegistered(domain.substring(0, domain.length() - domainSuffix.length()));
    }
}

package org.mucscale.engine.muc;

import java.io.StringReader;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A room's message archive (XEP-0313 {@code urn:xmpp:mam:2}, with the {@code #extended} fields before-id, after-id,
 * ids and flip-page), served from the room log through {@link RoomArchiveSource}. One per room thread.
 *
 * <p>On the room thread: the access check (it needs the room's occupants and affiliations) and the parsing of the
 * query, whose errors are answered at once. The database read and the rendering of the result messages run on an
 * archive thread ({@link ArchiveWorkers}); the rendered stanzas come back onto the room thread as one command, which
 * sends the result messages and then the IQ result with {@code <fin/>}, in that order. If the room thread's queue is
 * full, the archive thread sends them itself, in the same order (one thread sends them all, so the order holds).
 *
 * <p>Who may read: an occupant of the room; otherwise a member, admin or owner; otherwise anyone who could join
 * without more: not an outcast, and the room neither members-only nor password-protected (a non-member of those gets
 * forbidden, as Prosody's mod_muc_mam answers; registration-required is XEP-0045's answer to a join, and
 * not-authorized asks for a password the archive query has no place for).
 */
final class RoomArchive {
    private static final Logger LOG = LoggerFactory.getLogger(RoomArchive.class);
    static final String NS_MAM = "urn:xmpp:mam:2";
    static final String NS_MAM_EXTENDED = "urn:xmpp:mam:2#extended";
    static final String NS_RSM = "http://jabber.org/protocol/rsm";
    static final String NS_FORWARD = "urn:xmpp:forward:0";
    static final String NS_CLIENT = "jabber:client";
    private static final XMLInputFactory XML = xmlFactory();

    private final RoomShard shard;
    private final ServiceContext ctx;

    RoomArchive(RoomShard shard) {
        this.shard = shard;
        this.ctx = shard.ctx;
    }

    /** Room thread: an IQ get or set to the room in {@code urn:xmpp:mam:2}. */
    void handle(Room room, Command c, XmlElement payload, Occupant sender, Affiliation affiliation) {
        boolean get = "get".equals(c.stanza.attribute("type"));
        String refusal = refusal(room, sender, affiliation);
        if (refusal != null) {
            Room.reply(ctx, c, room.settings().archivingEnabled() ? Condition.FORBIDDEN : Condition.SERVICE_UNAVAILABLE,
                    refusal);
            return;
        }
        if (get && "query".equals(payload.name())) {
            ctx.delivery.send(Stanzas.result(c.stanza, c.to, c.from, form()));
            return;
        }
        if (get && "metadata".equals(payload.name())) {
            submit(c, room.jid, () -> metadata(room.jid, c));
            return;
        }
        if (get || !"query".equals(payload.name())) {
            Room.reply(ctx, c, Condition.BAD_REQUEST, "expected <query/> (set, or get for the form) or <metadata/> (get)");
            return;
        }
        RoomArchiveSource.Query q;
        try {
            q = parse(room.jid, payload, ctx.config.archiveMaxPage);
        } catch (IllegalArgumentException e) {
            Room.reply(ctx, c, Condition.BAD_REQUEST, e.getMessage());
            return;
        } catch (UnsupportedOperationException e) {
            Room.reply(ctx, c, Condition.FEATURE_NOT_IMPLEMENTED, e.getMessage());
            return;
        }
        String queryId = payload.attribute("queryid");
        boolean flip = payload.child("flip-page") != null;
        submit(c, room.jid, () -> query(room.jid, c, q, queryId, flip));
    }

    /** Why {@code sender}/{@code affiliation} may not read this room's archive, or null when they may. */
    static String refusal(Room room, Occupant sender, Affiliation affiliation) {
        if (!room.settings().archivingEnabled()) {
            return "this room does not archive its messages";
        }
        if (affiliation == Affiliation.OUTCAST) {
            return "you are banned from this room";
        }
        if (sender != null || affiliation.atLeast(Affiliation.MEMBER)) {
            return null;
        }
        if (room.settings().membersOnly()) {
            return "only members may read the archive of a members-only room";
        }
        if (room.settings().password() != null) {
            return "join this password-protected room to read its archive";
        }
        if (room.locked) {
            return "the room is still being created";
        }
        return null;
    }

    /** The search form (XEP-0313 4.1.1, with the #extended fields). */
    static XmlElement form() {
        XmlElement ids = XmlElement.builder("field").attribute("var", "ids").attribute("type", "list-multi")
                .child(XmlElement.builder("validate", "http://jabber.org/protocol/xdata-validate")
                        .attribute("datatype", "xs:string").child(XmlElement.builder("open").build()).build())
                .build();
        return XmlElement.builder("query", NS_MAM).child(XmlElement.builder("x", Stanzas.NS_DATA)
                .attribute("type", "form")
                .child(Stanzas.formField("FORM_TYPE", "hidden", null, NS_MAM))
                .child(Stanzas.formField("with", "jid-single", null))
                .child(Stanzas.formField("start", "text-single", null))
                .child(Stanzas.formField("end", "text-single", null))
                .child(Stanzas.formField("before-id", "text-single", null))
                .child(Stanzas.formField("after-id", "text-single", null))
                .child(ids).build()).build();
    }

    /**
     * Parses a query: the data form (if any) and RSM. Throws IllegalArgumentException for a bad value (bad-request)
     * and UnsupportedOperationException for what is not implemented (RSM index).
     */
    static RoomArchiveSource.Query parse(Jid room, XmlElement query, int maxPage) {
        long start = Long.MIN_VALUE;
        long end = Long.MAX_VALUE;
        String withNick = null;
        String afterId = null;
        String beforeId = null;
        List<String> ids = null;
        XmlElement form = query.child("x", Stanzas.NS_DATA);
        if (form != null) {
            if (!"submit".equals(form.attribute("type"))) {
                throw new IllegalArgumentException("the form must be of type submit");
            }
            for (XmlElement field : form.elements("field")) {
                String var = field.attribute("var");
                List<String> values = new ArrayList<>();
                for (XmlElement v : field.elements("value")) {
                    values.add(v.text());
                }
                String v = values.isEmpty() ? null : values.get(0).trim();
                if (var == null) {
                    throw new IllegalArgumentException("a form field without var");
                }
                switch (var) {
                    case "FORM_TYPE" -> {
                        if (!NS_MAM.equals(v)) {
                            throw new IllegalArgumentException("FORM_TYPE must be " + NS_MAM + ", was '" + v + "'");
                        }
                    }
                    case "start" -> start = time(var, v);
                    case "end" -> end = time(var, v);
                    case "with" -> withNick = nick(room, v);
                    case "after-id" -> afterId = id(var, v);
                    case "before-id" -> beforeId = id(var, v);
                    case "ids" -> {
                        ids = new ArrayList<>();
                        for (String s : values) {
                            ids.add(id(var, s == null ? null : s.trim()));
                        }
                        if (ids.isEmpty()) {
                            throw new IllegalArgumentException("ids needs at least one value");
                        }
                        if (ids.size() > maxPage) {
                            throw new IllegalArgumentException("ids names " + ids.size() + " messages; at most "
                                    + maxPage + " per query");
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown field '" + var + "'; this archive knows"
                            + " with, start, end, before-id, after-id and ids");
                }
            }
        }
        if (start != Long.MIN_VALUE && end != Long.MAX_VALUE && start > end) {
            throw new IllegalArgumentException("start is after end");
        }
        int max = maxPage;
        String pageAfter = null;
        String pageBefore = null;
        boolean lastPage = false;
        XmlElement set = query.child("set", NS_RSM);
        if (set != null) {
            String m = set.childText("max");
            if (m != null) {
                try {
                    max = Integer.parseInt(m.trim());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("RSM max must be a whole number, was '" + m + "'");
                }
                if (max < 0) {
                    throw new IllegalArgumentException("RSM max must not be negative, was " + max);
                }
                max = Math.min(max, maxPage);
            }
            if (set.child("index") != null) {
                throw new UnsupportedOperationException("RSM index is not supported: page with after and before");
            }
            XmlElement after = set.child("after");
            if (after != null) {
                pageAfter = id("RSM after", after.text().trim());
            }
            XmlElement before = set.child("before");
            if (before != null) {
                lastPage = true;
                String b = before.text().trim();
                pageBefore = b.isEmpty() ? null : b;
            }
            if (pageAfter != null && lastPage) {
                throw new IllegalArgumentException("RSM after and before together are not supported");
            }
        }
        // The count (a COUNT over the range) is given with the first or last page of a range, where clients read it;
        // pages reached by RSM after/before leave it out (XEP-0059 makes it optional) to keep deep paging cheap.
        boolean count = pageAfter == null && pageBefore == null;
        return new RoomArchiveSource.Query(start, end, withNick, afterId, beforeId, pageAfter, pageBefore, lastPage,
                ids, max, count);
    }

    private static long time(String var, String v) {
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException(var + " needs a value (XEP-0082 date-time, e.g. 2026-01-31T12:00:00Z)");
        }
        try {
            return OffsetDateTime.parse(v).toInstant().toEpochMilli();
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException(var + " must be an XEP-0082 date-time such as 2026-01-31T12:00:00Z,"
                    + " was '" + v + "'");
        }
    }

    private static String nick(Jid room, String v) {
        Jid with;
        try {
            with = v == null ? null : Jid.parse(v);
        } catch (IllegalArgumentException e) {
            with = null;
        }
        if (with == null || with.resource() == null || !with.bare().equals(room)) {
            throw new IllegalArgumentException("with must be an occupant JID of this room (" + room + "/nick), was '"
                    + v + "'");
        }
        return with.resource();
    }

    private static String id(String var, String v) {
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException(var + " needs a stanza id");
        }
        return v;
    }

    // ------------------------------------------------------------------------------------------- archive threads

    private void submit(Command c, Jid room, Runnable work) {
        ArchiveWorkers workers = ctx.archiveWorkers;
        if (workers == null || !workers.submit(work)) {
            Room.reply(ctx, c, Condition.RESOURCE_CONSTRAINT, "the archive is busy; try again shortly");
        }
    }

    /** Archive thread: reads the page, renders it and hands it to the room thread. */
    private void query(Jid room, Command c, RoomArchiveSource.Query q, String queryId, boolean flip) {
        List<XmlElement> out = new ArrayList<>();
        try {
            RoomArchiveSource.Page page = ctx.archiveSource.query(room, q);
            List<RoomArchiveSource.Message> messages = new ArrayList<>(page.messages());
            if (flip) {
                Collections.reverse(messages);
            }
            for (RoomArchiveSource.Message m : messages) {
                out.add(result(room, c.from, queryId, m));
            }
            XmlElement.Builder set = XmlElement.builder("set", NS_RSM);
            if (!messages.isEmpty()) {
                set.child(XmlElement.builder("first").text(messages.get(0).stanzaId()).build());
                set.child(XmlElement.builder("last").text(messages.get(messages.size() - 1).stanzaId()).build());
            }
            if (page.count() >= 0) {
                set.child(XmlElement.builder("count").text(Long.toString(page.count())).build());
            }
            XmlElement.Builder fin = XmlElement.builder("fin", NS_MAM).child(set.build());
            if (page.complete()) {
                fin.attribute("complete", "true");
            }
            out.add(Stanzas.result(c.stanza, c.to, c.from, fin.build()));
        } catch (RoomArchiveSource.UnknownIdException e) {
            out.add(Stanzas.error(c.stanza, c.to, c.from, Condition.ITEM_NOT_FOUND, e.getMessage()));
        } catch (Exception | Error e) {
            LOG.warn("mucscale: archive query of {} in {} failed: {}", c.from, room, e.toString());
            out.add(Stanzas.error(c.stanza, c.to, c.from, Condition.INTERNAL_SERVER_ERROR,
                    "the archive could not be read; try again later"));
        }
        deliver(out);
    }

    /** Archive thread: the metadata (XEP-0313 7: the archive's first and last message). */
    private void metadata(Jid room, Command c) {
        XmlElement reply;
        try {
            RoomArchiveSource.Edges edges = ctx.archiveSource.edges(room);
            XmlElement.Builder m = XmlElement.builder("metadata", NS_MAM);
            if (edges.first() != null && edges.last() != null) {
                m.child(XmlElement.builder("start").attribute("id", edges.first().stanzaId())
                        .attribute("timestamp", stamp(edges.first().timeMillis())).build());
                m.child(XmlElement.builder("end").attribute("id", edges.last().stanzaId())
                        .attribute("timestamp", stamp(edges.last().timeMillis())).build());
            }
            reply = Stanzas.result(c.stanza, c.to, c.from, m.build());
        } catch (Exception | Error e) {
            LOG.warn("mucscale: archive metadata of {} failed: {}", room, e.toString());
            reply = Stanzas.error(c.stanza, c.to, c.from, Condition.INTERNAL_SERVER_ERROR,
                    "the archive could not be read; try again later");
        }
        deliver(List.of(reply));
    }

    /** Onto the room thread, which sends them in order; if its queue is full, from here in the same order. */
    private void deliver(List<XmlElement> stanzas) {
        if (!shard.offer(new Command(s -> send(stanzas)))) {
            send(stanzas);
        }
    }

    private void send(List<XmlElement> stanzas) {
        for (XmlElement s : stanzas) {
            ctx.delivery.send(s);
        }
    }

    /** One result message: the archived message forwarded with its time, stanza-id and occupant-id. */
    XmlElement result(Jid room, Jid to, String queryId, RoomArchiveSource.Message m) {
        XmlElement.Builder r = XmlElement.builder("result", NS_MAM).attribute("id", m.stanzaId());
        if (queryId != null) {
            r.attribute("queryid", queryId);
        }
        XmlElement forwarded = XmlElement.builder("forwarded", NS_FORWARD)
                .child(XmlElement.builder("delay", Stanzas.NS_DELAY).attribute("stamp", stamp(m.timeMillis())).build())
                .child(archived(room, m)).build();
        return XmlElement.builder("message").attribute("from", room.toString()).attribute("to", to.toString())
                .child(r.child(forwarded).build()).build();
    }

    /** The message as stored (a tombstone, for one) when its XML was kept, else rebuilt from the logged fields. */
    XmlElement archived(Jid room, RoomArchiveSource.Message m) {
        if (m.stanzaXml() != null) {
            XmlElement stored = parse(m.stanzaXml());
            if (stored != null) {
                return stored;
            }
            LOG.warn("mucscale: archived message {} of {} has unreadable stored XML; rendered from its fields",
                    m.stanzaId(), room);
        }
        XmlElement.Builder b = XmlElement.builder("message", NS_CLIENT)
                .attribute("from", room + "/" + m.nick()).attribute("type", "groupchat");
        if (m.subject() != null) {
            b.textChild("subject", m.subject());
        }
        if (m.body() != null) {
            b.textChild("body", m.body());
        }
        if (ctx.config.occupantIds && m.realJid() != null) {
            try {
                b.child(XmlElement.builder("occupant-id", Stanzas.NS_OCCUPANT_ID)
                        .attribute("id", ctx.occupantId(room, Stanzas.userKey(Jid.parse(m.realJid())))).build());
            } catch (IllegalArgumentException e) {
                // a real JID the log kept but that no longer parses: the message goes out without occupant-id
            }
        }
        b.child(XmlElement.builder("stanza-id", Stanzas.NS_SID).attribute("id", m.stanzaId())
                .attribute("by", room.toString()).build());
        return b.build();
    }

    static String stamp(long millis) {
        return Instant.ofEpochMilli(millis).toString();
    }

    // ------------------------------------------------------------------------------------------- stored XML

    private static XMLInputFactory xmlFactory() {
        XMLInputFactory f = XMLInputFactory.newFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
        return f;
    }

    /** A stored stanza as an element in the client namespace, or null when it is not well-formed XML. */
    static XmlElement parse(String xml) {
        try {
            XMLStreamReader r = XML.createXMLStreamReader(new StringReader(xml));
            try {
                while (r.hasNext()) {
                    if (r.next() == XMLStreamConstants.START_ELEMENT) {
                        return element(r, true);
                    }
                }
                return null;
            } finally {
                r.close();
            }
        } catch (XMLStreamException | RuntimeException e) {
            return null;
        }
    }

    private static XmlElement element(XMLStreamReader r, boolean root) throws XMLStreamException {
        String ns = r.getNamespaceURI();
        if (ns == null || ns.isEmpty()) {
            ns = root ? NS_CLIENT : null;
        }
        XmlElement.Builder b = XmlElement.builder(r.getLocalName(), ns);
        for (int i = 0; i < r.getAttributeCount(); i++) {
            String prefix = r.getAttributePrefix(i);
            String name = prefix == null || prefix.isEmpty() ? r.getAttributeLocalName(i)
                    : prefix + ":" + r.getAttributeLocalName(i);
            b.attribute(name, r.getAttributeValue(i));
        }
        StringBuilder text = new StringBuilder();
        while (r.hasNext()) {
            int e = r.next();
            if (e == XMLStreamConstants.START_ELEMENT) {
                if (!text.isEmpty()) {
                    b.text(text.toString());
                    text.setLength(0);
                }
                b.child(element(r, false));
            } else if (e == XMLStreamConstants.CHARACTERS || e == XMLStreamConstants.CDATA) {
                text.append(r.getText());
            } else if (e == XMLStreamConstants.END_ELEMENT) {
                break;
            }
        }
        if (!text.isEmpty()) {
            b.text(text.toString());
        }
        return b.build();
    }
}

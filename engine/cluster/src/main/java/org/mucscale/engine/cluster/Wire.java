package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.List;

import org.mucscale.engine.muc.Forwarded;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The messages nodes send each other (the payload of {@link ClusterTransport#send}), in {@link Codec}'s format:
 *
 * <pre>
 *   message  := u8 kind, i64 senderEpoch, varint seq, body
 *   FORWARD  := string room, string entryNode, u8 hops, u8 flags,               a stanza for a room owned there;
 *               [string owner, string sender, i64 epoch, varint seq]         flag 1: resent after its first owner
 *               (if flag 2), element stanza                                  left unconfirmed (see CONFIRM);
 *                                                                            flag 2: the forward it repeats or
 *                                                                            continues (its origin)
 *   RELAY    := i64 sentMicros, varint n, (string prefix, string suffix)*,       rendered once on the owner,
 *               varint m, (varint stanzaIndex, string recipient)*                delivered there to local sessions
 *   HANDOFF  := string room                                                      "the room's replicated state is
 *                                                                                 complete: take it over now"
 *   LEAVING  := (nothing)                                                        "I am leaving: route around me;
 *                                                                                 my rooms come as hand-offs"
 *   CONFIRM  := i64 linkEpoch, varint upToSeq                                    "everything you sent me on your
 *                                                                                 link (that epoch) up to upToSeq
 *                                                                                 is processed and replicated"
 *   REDELIVER := i64 sentMicros, i64 key, string prefix, string suffix,          a message a departed owner had
 *               varint m, (string recipient)*                                    accepted, sent again by the new
 *                                                                                 owner: delivered there only if
 *                                                                                 that node had not delivered key
 *                                                                                 (see DeliveredIds)
 *   SWITCHED := varint n, (string member)*                                     "I now place rooms over these
 *                                                                                 members, and have handed off every
 *                                                                                 room this view moved away from me"
 *   BATCH    := u8 kind, varint n, (varint length, message)*                    several messages to one node in one
 *                                                                                 send (see Outbox); n >= 2, never
 *                                                                                 nested, no header of its own: each
 *                                                                                 message keeps its epoch and seq
 *   ADMIN_CALL := varint callId, string who, string method, string path,         an operator's call for the receiver
 *               string query, string contentType, bytes body                     to run (wire version 2; AdminCalls)
 *   ADMIN_ANSWER := varint callId, varint status, string contentType,            its answer, to the node that sent
 *               string body, varint n, (string header, string value)*            the call
 *   PASSED   := string entryNode                                                 (wire version 4) from a leaving
 *                                                                                 node: "every forward of entryNode's
 *                                                                                 that I passed on to you is before
 *                                                                                 this"; from entryNode to it:
 *                                                                                 "nothing more of mine comes to
 *                                                                                 you" (StragglerHold)
 * </pre>
 *
 * <p>Forward compatibility (wire version 3, {@link NodeVersions#WIRE_VERSION}): every message is delimited by its send
 * or by its length in a batch, so a reader reads the fields it knows and ignores whatever follows them. A later version
 * may append fields at the end of a body that a reader may safely ignore, and send them to every peer of wire version
 * 3 or later; anything else (a new kind, a changed or reordered field, a flag that must not be ignored) raises the
 * wire version and goes only to peers that publish it. Wire versions 1 and 2 refused any byte after the known fields.
 * A FORWARD flag after {@link #ORIGIN} puts its fields after the stanza, so that a reader that does not know it can
 * still read the stanza and refuse it to its sender ({@link UnknownFlags}); and every message that carries a client's
 * stanza, of any kind and version, begins as a FORWARD does up to the stanza's attributes, so that a reader that cannot
 * read the rest can still refuse the stanza ({@link #carried}).
 */
final class Wire {
    static final int FORWARD = 1;
    static final int RELAY = 2;
    static final int HANDOFF = 3;
    static final int LEAVING = 4;
    static final int CONFIRM = 5;
    static final int REDELIVER = 6;
    static final int BATCH = 7;
    static final int SWITCHED = 8;
    static final int ADMIN_CALL = 9;
    static final int ADMIN_ANSWER = 10;
    /** Sent only to nodes that published {@link StragglerHold#WIRE_VERSION} or later. */
    static final int PASSED = 11;
    /** FORWARD flag: a stanza sent again because the owner it went to left before confirming it. */
    static final int RESENT = 1;
    /**
     * FORWARD flag: the forward this one repeats (a resend) or continues (forwarded on) follows the flags, as
     * {@code string owner, string sender, i64 epoch, varint seq} (see {@link Forwarded}); its new owner skips it if the
     * room's accepted mark covers that forward.
     */
    static final int ORIGIN = 2;

    private Wire() {
    }

    /** A decoded message: the header and one of the bodies. */
    record Message(int kind, long epoch, long seq, Jid room, String entryNode, int hops, XmlElement stanza,
                   Relay relay, boolean resent, long confirmedEpoch, long confirmedSeq, List<String> members,
                   Admin admin, Forwarded origin) {
        Message(int kind, long epoch, long seq, Jid room, String entryNode, int hops, XmlElement stanza,
                Relay relay, boolean resent, long confirmedEpoch, long confirmedSeq, List<String> members) {
            this(kind, epoch, seq, room, entryNode, hops, stanza, relay, resent, confirmedEpoch, confirmedSeq, members,
                    null, null);
        }

        Message(int kind, long epoch, long seq, Jid room, String entryNode, int hops, XmlElement stanza, Relay relay) {
            this(kind, epoch, seq, room, entryNode, hops, stanza, relay, false, 0, 0, List.of());
        }

        Message(int kind, long epoch, long seq, Jid room, String entryNode, int hops, XmlElement stanza, Relay relay,
                boolean resent, long confirmedEpoch, long confirmedSeq) {
            this(kind, epoch, seq, room, entryNode, hops, stanza, relay, resent, confirmedEpoch, confirmedSeq,
                    List.of());
        }
    }

    /**
     * Deliveries for the receiving node's local sessions: each recipient with the index of its stanza.
     * {@code redeliveryKey}: 0 for a relay; for a re-delivery the message's key in {@link DeliveredIds} (never 0).
     */
    record Relay(long sentMicros, RenderedStanza[] stanzas, int[] stanzaIndex, Jid[] recipients,
                 long redeliveryKey) {
        Relay(long sentMicros, RenderedStanza[] stanzas, int[] stanzaIndex, Jid[] recipients) {
            this(sentMicros, stanzas, stanzaIndex, recipients, 0);
        }
    }

    /** An administration call or its answer (one of the two is null). */
    record Admin(long callId, AdminCalls.Call call, AdminCalls.Answer answer) {
    }

    static byte[] adminCall(long epoch, long seq, long callId, AdminCalls.Call c) {
        byte[] body = c.body() == null ? new byte[0] : c.body();
        Codec.Out out = new Codec.Out(128 + body.length + c.path().length() * 3);
        out.u8(ADMIN_CALL).i64(epoch).varint(seq).varint(callId).string(c.who()).string(c.method()).string(c.path())
                .string(c.query()).string(c.contentType()).bytes(body);
        return out.toBytes();
    }

    static byte[] adminAnswer(long epoch, long seq, long callId, AdminCalls.Answer a) {
        String body = a.body() == null ? "" : a.body();
        Codec.Out out = new Codec.Out(64 + body.length() * 3);
        out.u8(ADMIN_ANSWER).i64(epoch).varint(seq).varint(callId).varint(a.status()).string(a.contentType())
                .string(body).varint(a.headers().size());
        a.headers().forEach((k, v) -> out.string(k).string(v));
        return out.toBytes();
    }

    static byte[] redeliver(long epoch, long seq, long sentMicros, long key, RenderedStanza stanza,
                            java.util.List<Jid> recipients) {
        Codec.Out out = new Codec.Out(64 + stanza.fixedUtf8Length() + recipients.size() * 48);
        out.u8(REDELIVER).i64(epoch).varint(seq).i64(sentMicros).i64(key).string(stanza.prefix())
                .string(stanza.suffix()).varint(recipients.size());
        for (Jid r : recipients) {
            out.jid(r);
        }
        return out.toBytes();
    }

    static byte[] forward(long epoch, long seq, Jid room, String entryNode, int hops, XmlElement stanza) {
        return forward(epoch, seq, room, entryNode, hops, false, stanza);
    }

    static byte[] forward(long epoch, long seq, Jid room, String entryNode, int hops, boolean resent,
                          XmlElement stanza) {
        return forward(epoch, seq, room, entryNode, hops, resent, null, stanza);
    }

    static byte[] forward(long epoch, long seq, Jid room, String entryNode, int hops, boolean resent, Forwarded origin,
                          XmlElement stanza) {
        Codec.Out out = new Codec.Out(512);
        out.u8(FORWARD).i64(epoch).varint(seq).jid(room).string(entryNode).u8(hops)
                .u8((resent ? RESENT : 0) | (origin != null ? ORIGIN : 0));
        if (origin != null) {
            out.string(origin.owner()).string(origin.sender()).i64(origin.epoch()).varint(origin.seq());
        }
        out.element(stanza);
        return out.toBytes();
    }

    static byte[] confirm(long epoch, long seq, long confirmedEpoch, long upToSeq) {
        return new Codec.Out(32).u8(CONFIRM).i64(epoch).varint(seq).i64(confirmedEpoch).varint(upToSeq).toBytes();
    }

    static byte[] leaving(long epoch, long seq) {
        return new Codec.Out(16).u8(LEAVING).i64(epoch).varint(seq).toBytes();
    }

    static byte[] passed(long epoch, long seq, String entryNode) {
        return new Codec.Out(48).u8(PASSED).i64(epoch).varint(seq).string(entryNode).toBytes();
    }

    static byte[] switched(long epoch, long seq, List<String> members) {
        Codec.Out out = new Codec.Out(16 + members.size() * 40);
        out.u8(SWITCHED).i64(epoch).varint(seq).varint(members.size());
        for (String m : members) {
            out.string(m);
        }
        return out.toBytes();
    }

    static byte[] handoff(long epoch, long seq, Jid room) {
        Codec.Out out = new Codec.Out(64);
        out.u8(HANDOFF).i64(epoch).varint(seq).jid(room);
        return out.toBytes();
    }

    /** Builds one relay: stanzas in first-use order (each rendered stanza once), then recipients. */
    static final class RelayBuilder {
        private RenderedStanza[] stanzas = new RenderedStanza[4];
        private int stanzaCount;
        private int[] index = new int[16];
        private Jid[] recipients = new Jid[16];
        private int count;

        void add(RenderedStanza stanza, Jid recipient) {
            // a broadcast's deliveries come in a run, so comparing with the last stanza finds nearly every repeat
            int i = stanzaCount - 1;
            if (i < 0 || stanzas[i] != stanza) {
                if (stanzaCount == stanzas.length) {
                    stanzas = java.util.Arrays.copyOf(stanzas, stanzaCount * 2);
                }
                stanzas[stanzaCount] = stanza;
                i = stanzaCount++;
            }
            if (count == recipients.length) {
                recipients = java.util.Arrays.copyOf(recipients, count * 2);
                index = java.util.Arrays.copyOf(index, count * 2);
            }
            index[count] = i;
            recipients[count++] = recipient;
        }

        boolean isEmpty() {
            return count == 0;
        }

        int deliveries() {
            return count;
        }

        byte[] encode(long epoch, long seq, long sentMicros) {
            int estimate = 32 + count * 48;
            for (int i = 0; i < stanzaCount; i++) {
                estimate += stanzas[i].fixedUtf8Length() + 8;
            }
            Codec.Out out = new Codec.Out(estimate);
            out.u8(RELAY).i64(epoch).varint(seq).i64(sentMicros).varint(stanzaCount);
            for (int i = 0; i < stanzaCount; i++) {
                out.string(stanzas[i].prefix()).string(stanzas[i].suffix());
            }
            out.varint(count);
            for (int i = 0; i < count; i++) {
                out.varint(index[i]).jid(recipients[i]);
            }
            return out.toBytes();
        }

        void clear() {
            java.util.Arrays.fill(stanzas, 0, stanzaCount, null);
            java.util.Arrays.fill(recipients, 0, count, null);
            stanzaCount = 0;
            count = 0;
        }
    }

    /** One send of several messages to one node, in order (at least two; see {@link #unbatch}). */
    static byte[] batch(List<byte[]> messages, int totalBytes) {
        if (messages.size() < 2) {
            throw new IllegalArgumentException("a batch holds at least two messages, not " + messages.size());
        }
        Codec.Out out = new Codec.Out(8 + totalBytes + messages.size() * 3);
        out.u8(BATCH).varint(messages.size());
        for (byte[] m : messages) {
            out.bytes(m);
        }
        return out.toBytes();
    }

    /** The messages of one send: those of a {@link #batch}, in order, or the send itself. */
    static List<byte[]> unbatch(byte[] bytes) {
        if (bytes.length == 0 || (bytes[0] & 0xff) != BATCH) {
            return List.of(bytes);
        }
        Codec.In in = new Codec.In(bytes);
        in.u8();
        int n = in.count();
        if (n < 2) {
            throw new IllegalArgumentException("a batch of " + n + " messages");
        }
        List<byte[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] m = in.bytes();
            if (m.length == 0 || (m[0] & 0xff) == BATCH) {
                throw new IllegalArgumentException("message " + i + " of a batch is " + (m.length == 0 ? "empty"
                        : "a batch itself"));
            }
            out.add(m);
        }
        in.end();
        return out;
    }

    /**
     * A forward this build reads but must not handle: it has a flag of a later wire version (which a reader may not
     * ignore, by the rule above). Its stanza is readable, so its sender can be told ({@link Carried#refusal}).
     */
    static final class UnknownFlags extends IllegalArgumentException {
        final Carried carried;

        UnknownFlags(int flags, Jid room, String entryNode, XmlElement stanza) {
            super("unknown forward flags " + flags);
            this.carried = new Carried(room, entryNode, stanza);
        }
    }

    /** A message of a kind this build does not know (a later wire version's, or a corrupt one). */
    static final class UnknownKind extends IllegalArgumentException {
        UnknownKind(int kind) {
            super("unknown cluster message kind " + kind);
        }
    }

    /**
     * The client stanza a message carried, for a room, and the node its sender's session is on ({@code entryNode},
     * may be null): what a reader that cannot handle the message can still answer ({@link #carried}).
     */
    record Carried(Jid room, String entryNode, XmlElement stanza) {
        /**
         * The error for the stanza's sender (service-unavailable, from the room; its recipient is added as a relay
         * adds it), or null for a stanza of type error or without a sender: no error answers an error.
         */
        XmlElement refusal() {
            if ("error".equals(stanza.attribute("type")) || stanza.attribute("from") == null) {
                return null;
            }
            String ns = "urn:ietf:params:xml:ns:xmpp-stanzas";
            XmlElement.Builder reply = XmlElement.builder(stanza.name()).attribute("from", stanza.attribute("to"))
                    .attribute("type", "error").attribute("id", stanza.attribute("id"));
            if (stanza.name().equals("presence") && stanza.child("x", "http://jabber.org/protocol/muc") != null) {
                reply.child(XmlElement.builder("x", "http://jabber.org/protocol/muc").build());
            }
            return reply.child(XmlElement.builder("error").attribute("type", "cancel")
                    .child(XmlElement.builder("service-unavailable", ns).build())
                    .child(XmlElement.builder("text", ns).attribute("xml:lang", "en").text("the chat service is being "
                            + "upgraded and this room's server cannot handle this yet; try again shortly").build())
                    .build()).build();
        }

        /** For the log: "presence from carol@example.org/r to lobby@conference.example.org/carol (id j1)". */
        String describe() {
            String id = stanza.attribute("id");
            return stanza.name() + " from " + stanza.attribute("from") + " to " + stanza.attribute("to")
                    + (id == null ? "" : " (id " + id + ")");
        }
    }

    /**
     * The stanza carried by a message that did not decode ({@code why}), or null if none can be identified. Every
     * message that carries a client's stanza for a room, of any kind and any wire version, begins its body as a FORWARD
     * does up to the stanza's attributes ({@code string room, string entryNode, u8 hops, u8 flags}, the origin's fields
     * if flag 2, then the element, whose name, namespace and attributes come before its children), so that a reader
     * of an older version can refuse what it cannot handle instead of dropping it in silence. So a FORWARD cut short
     * or changed after those fields, and a message of a kind this build does not know, yield the stanza; if its
     * children do not read, the stanza without them. Kinds this build knows other than FORWARD carry no stanza. What
     * is read must look like a stanza for that room from a sender (message, presence or iq; a {@code from}; a
     * {@code to} at the room), as a garbled body read by this rule could yield anything.
     */
    static Carried carried(byte[] bytes, RuntimeException why) {
        if (why instanceof UnknownFlags u) {
            return u.carried;
        }
        // decode's switch says which kinds this build knows (UnknownKind), so a kind added there needs nothing here
        if (!(why instanceof UnknownKind) && (bytes.length == 0 || (bytes[0] & 0xff) != FORWARD)) {
            return null;
        }
        Carried c = carriedPrefix(bytes, false);
        if (c == null) {
            c = carriedPrefix(bytes, true);
        }
        return c != null && looksCarried(c) ? c : null;
    }

    private static Carried carriedPrefix(byte[] bytes, boolean withoutChildren) {
        try {
            Codec.In in = new Codec.In(bytes);
            in.u8();
            in.i64();
            in.varint();
            Jid room = in.jid();
            String entry = in.string();
            in.u8();
            if ((in.u8() & ORIGIN) != 0) {
                in.string();
                in.string();
                in.i64();
                in.varint();
            }
            XmlElement stanza = withoutChildren ? in.elementHead() : in.element();
            return room == null || stanza == null ? null : new Carried(room, entry, stanza);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static boolean looksCarried(Carried c) {
        String name = c.stanza().name();
        Jid to = Jid.tryParse(c.stanza().attribute("to"));
        return (name.equals("message") || name.equals("presence") || name.equals("iq"))
                && Jid.tryParse(c.stanza().attribute("from")) != null && to != null && to.local() != null
                && to.local().equalsIgnoreCase(c.room().local()) && to.domain().equalsIgnoreCase(c.room().domain());
    }

    /** Kind of a message read only as far as its header (see {@link #headerOnly}). */
    static final int UNREADABLE = 0;

    /**
     * The header of a message whose body could not be read (a newer kind or layout, from a node of another version):
     * a message of kind {@link #UNREADABLE} that holds only its link's epoch and sequence number, so that the link
     * goes on past it instead of waiting for it; null if not even the header reads. The header ({@code u8 kind, i64
     * epoch, varint seq}) is the same in every wire version.
     */
    static Message headerOnly(byte[] bytes) {
        try {
            Codec.In in = new Codec.In(bytes);
            in.u8();
            long epoch = in.i64();
            long seq = in.varint();
            return new Message(UNREADABLE, epoch, seq, null, null, 0, null, null);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Reads a message; bytes after the fields of its kind (fields of a later version) are ignored. */
    static Message decode(byte[] bytes) {
        Codec.In in = new Codec.In(bytes);
        int kind = in.u8();
        long epoch = in.i64();
        long seq = in.varint();
        switch (kind) {
            case FORWARD -> {
                Jid room = in.jid();
                String entry = in.string();
                int hops = in.u8();
                int flags = in.u8();
                Forwarded origin = null;
                if ((flags & ORIGIN) != 0) {
                    String owner = in.requiredString("origin owner");
                    String sender = in.requiredString("origin sender");
                    origin = new Forwarded(owner, sender, in.i64(), in.varint());
                }
                XmlElement stanza = in.element();
                if (room == null || stanza == null) {
                    throw new IllegalArgumentException("a forwarded stanza needs a room and a stanza");
                }
                if ((flags & ~(RESENT | ORIGIN)) != 0) {
                    // a later version's flag: its fields follow the stanza (the rule above), so the stanza reads
                    throw new UnknownFlags(flags, room, entry, stanza);
                }
                return new Message(kind, epoch, seq, room, entry, hops, stanza, null, (flags & RESENT) != 0, 0, 0,
                        List.of(), null, origin);
            }
            case RELAY -> {
                long sent = in.i64();
                int n = in.count();
                RenderedStanza[] stanzas = new RenderedStanza[n];
                for (int i = 0; i < n; i++) {
                    stanzas[i] = RenderedStanza.of(in.requiredString("prefix"), in.requiredString("suffix"));
                }
                int m = in.count();
                int[] index = new int[m];
                Jid[] recipients = new Jid[m];
                for (int i = 0; i < m; i++) {
                    long ix = in.varint();
                    if (ix < 0 || ix >= n) {
                        throw new IllegalArgumentException("relay names stanza " + ix + " of " + n);
                    }
                    index[i] = (int) ix;
                    recipients[i] = in.jid();
                    if (recipients[i] == null) {
                        throw new IllegalArgumentException("relay delivery " + i + " has no recipient");
                    }
                }
                return new Message(kind, epoch, seq, null, null, 0, null, new Relay(sent, stanzas, index, recipients));
            }
            case REDELIVER -> {
                long sent = in.i64();
                long key = in.i64();
                if (key == 0) {
                    throw new IllegalArgumentException("a re-delivery needs a key");
                }
                RenderedStanza stanza = RenderedStanza.of(in.requiredString("prefix"), in.requiredString("suffix"));
                int m = in.count();
                Jid[] recipients = new Jid[m];
                for (int i = 0; i < m; i++) {
                    recipients[i] = in.jid();
                    if (recipients[i] == null) {
                        throw new IllegalArgumentException("re-delivery " + i + " has no recipient");
                    }
                }
                return new Message(kind, epoch, seq, null, null, 0, null,
                        new Relay(sent, new RenderedStanza[] {stanza}, new int[m], recipients, key));
            }
            case HANDOFF -> {
                Jid room = in.jid();
                if (room == null) {
                    throw new IllegalArgumentException("a hand-off needs a room");
                }
                return new Message(kind, epoch, seq, room, null, 0, null, null);
            }
            case LEAVING -> {
                return new Message(kind, epoch, seq, null, null, 0, null, null);
            }
            case PASSED -> {
                return new Message(kind, epoch, seq, null, in.requiredString("entry node"), 0, null, null);
            }
            case SWITCHED -> {
                int n = in.count();
                List<String> members = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    members.add(in.requiredString("member"));
                }
                if (members.isEmpty()) {
                    throw new IllegalArgumentException("a view switch names no members");
                }
                return new Message(kind, epoch, seq, null, null, 0, null, null, false, 0, 0, List.copyOf(members));
            }
            case ADMIN_CALL -> {
                long id = in.varint();
                AdminCalls.Call c = new AdminCalls.Call(in.requiredString("who"), in.requiredString("method"),
                        in.requiredString("path"), in.string(), in.string(), in.bytes());
                return new Message(kind, epoch, seq, null, null, 0, null, null, false, 0, 0, List.of(),
                        new Admin(id, c, null), null);
            }
            case ADMIN_ANSWER -> {
                long id = in.varint();
                int status = (int) in.varint();
                if (status < 100 || status > 599) {
                    throw new IllegalArgumentException("an answer with status " + status);
                }
                String type = in.string();
                String body = in.string();
                int n = in.count();
                java.util.Map<String, String> headers = new java.util.LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    headers.put(in.requiredString("header"), in.requiredString("header value"));
                }
                return new Message(kind, epoch, seq, null, null, 0, null, null, false, 0, 0, List.of(),
                        new Admin(id, null, new AdminCalls.Answer(status, type, body == null ? "" : body, headers)), null);
            }
            case CONFIRM -> {
                long confirmedEpoch = in.i64();
                long upTo = in.varint();
                return new Message(kind, epoch, seq, null, null, 0, null, null, false, confirmedEpoch, upTo);
            }
            default -> throw new UnknownKind(kind);
        }
    }
}

package org.mucscale.loadgen;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.filterchain.IoFilterAdapter;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.core.write.DefaultWriteRequest;
import org.apache.mina.core.write.WriteRequest;

/**
 * The client side of XMPP over WebSocket (RFC 7395 over RFC 6455) as a MINA filter, one instance per connection, so
 * one generator drives TCP and WebSocket clients alike: on connect it sends the HTTP/1.1 upgrade ({@code
 * Sec-WebSocket-Protocol: xmpp}) and holds {@code sessionOpened} back until a {@code 101} with the right accept key
 * and protocol arrived; then each write becomes one masked text frame, and the payload of the server's frames goes
 * on as bytes to the client's scanner (frame boundaries do not matter to it: each frame is one whole element).
 *
 * <p>RFC 7395 has no stream wrapper to inherit {@code jabber:client} from, so a stanza written without its own
 * {@code xmlns} (the client's TCP code writes them that way) gets {@code xmlns='jabber:client'} here. The stream
 * open and close elements themselves ({@code <open/>}, {@code <close/>}) are the client's (see {@link Client}).
 *
 * <p>Concurrency: MINA calls the receive side on the session's processor thread only; {@link #filterWrite} runs on
 * whichever thread writes and touches no state of this object.
 */
final class WebSocketFraming extends IoFilterAdapter {
    static final String OPEN_NS = "urn:ietf:params:xml:ns:xmpp-framing";
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    private static final byte[] CLIENT_NS = Bytes.ascii(" xmlns='jabber:client'");
    private static final byte[] XMLNS_ATTR = Bytes.ascii(" xmlns=");
    private static final int OP_CONTINUATION = 0;
    private static final int OP_TEXT = 1;
    private static final int OP_CLOSE = 8;
    private static final int OP_PING = 9;
    private static final int OP_PONG = 10;

    private final String hostHeader;
    private final String path;
    private final String key;
    private boolean upgraded;
    /** Bytes not yet decoded: the HTTP response head, or a frame header split over two reads. */
    private byte[] pending = new byte[0];
    /** Payload bytes still to come of the frame being read, and its opcode. */
    private long payloadLeft;
    private int opcode;
    private byte[] control;
    private int controlLen;

    WebSocketFraming(String host, int port, String path) {
        this.hostHeader = host + ":" + port;
        this.path = path;
        byte[] nonce = new byte[16];
        ThreadLocalRandom.current().nextBytes(nonce);
        this.key = Base64.getEncoder().encodeToString(nonce);
    }

    @Override
    public void sessionOpened(NextFilter next, IoSession session) {
        String request = "GET " + path + " HTTP/1.1\r\nHost: " + hostHeader + "\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Protocol: xmpp\r\nOrigin: http://" + hostHeader + "\r\n\r\n";
        next.filterWrite(session, new DefaultWriteRequest(IoBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII))));
        // sessionOpened goes on once the server agreed to the upgrade (see messageReceived)
    }

    @Override
    public void messageReceived(NextFilter next, IoSession session, Object message) {
        IoBuffer in = (IoBuffer) message;
        byte[] data;
        int pos;
        int end;
        if (pending.length == 0 && in.hasArray()) {
            data = in.array();
            pos = in.arrayOffset() + in.position();
            end = in.arrayOffset() + in.limit();
        } else {
            int n = in.remaining();
            data = java.util.Arrays.copyOf(pending, pending.length + n);
            in.get(data, pending.length, n);
            pos = 0;
            end = data.length;
            pending = new byte[0];
        }
        try {
            if (!upgraded) {
                int head = headEnd(data, pos, end);
                if (head < 0) {
                    keep(data, pos, end);
                    return;
                }
                checkUpgrade(new String(data, pos, head - pos, StandardCharsets.ISO_8859_1));
                upgraded = true;
                pos = head;
                next.sessionOpened(session);
            }
            decodeFrames(next, session, data, pos, end);
        } catch (IllegalStateException e) {
            next.exceptionCaught(session, e);
            session.closeNow();
        } finally {
            in.free();
        }
    }

    private void decodeFrames(NextFilter next, IoSession session, byte[] b, int pos, int end) {
        while (pos < end) {
            if (payloadLeft > 0) {
                int n = (int) Math.min(payloadLeft, end - pos);
                if (opcode == OP_TEXT || opcode == OP_CONTINUATION) {
                    IoBuffer out = IoBuffer.allocate(n); // pooled; the client frees it after scanning
                    out.put(b, pos, n).flip();
                    next.messageReceived(session, out);
                } else {
                    System.arraycopy(b, pos, control, controlLen, n);
                    controlLen += n;
                }
                pos += n;
                payloadLeft -= n;
                if (payloadLeft == 0 && opcode >= OP_CLOSE) {
                    control(next, session);
                }
                continue;
            }
            int headerStart = pos;
            if (end - pos < 2) {
                keep(b, headerStart, end);
                return;
            }
            int b0 = b[pos] & 0xff;
            int b1 = b[pos + 1] & 0xff;
            if ((b1 & 0x80) != 0) {
                throw new IllegalStateException("websocket: server frame is masked");
            }
            int len7 = b1 & 0x7f;
            int headerLen = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0);
            if (end - pos < headerLen) {
                keep(b, headerStart, end);
                return;
            }
            long len = len7;
            if (len7 == 126) {
                len = ((b[pos + 2] & 0xff) << 8) | (b[pos + 3] & 0xff);
            } else if (len7 == 127) {
                len = 0;
                for (int i = 0; i < 8; i++) {
                    len = (len << 8) | (b[pos + 2 + i] & 0xff);
                }
            }
            pos += headerLen;
            int op = b0 & 0x0f;
            if (op != OP_CONTINUATION) {
                opcode = op;
            }
            if (op >= OP_CLOSE) {
                if (len > 125) {
                    throw new IllegalStateException("websocket: control frame longer than 125 bytes");
                }
                control = new byte[(int) len];
                controlLen = 0;
                opcode = op;
            } else if (op != OP_TEXT && op != OP_CONTINUATION) {
                throw new IllegalStateException("websocket: unexpected opcode " + op);
            }
            payloadLeft = len;
            if (len == 0 && op >= OP_CLOSE) {
                control(next, session);
            }
        }
    }

    private void control(NextFilter next, IoSession session) {
        if (opcode == OP_PING) {
            next.filterWrite(session, new DefaultWriteRequest(frame(OP_PONG, control, 0, controlLen, -1)));
        } else if (opcode == OP_CLOSE) {
            next.filterWrite(session, new DefaultWriteRequest(frame(OP_CLOSE, control, 0, Math.min(2, controlLen), -1)));
            session.closeOnFlush();
        }
        // a pong needs nothing
        opcode = OP_CONTINUATION;
    }

    private void keep(byte[] b, int from, int end) {
        if (end - from > 64 * 1024) {
            throw new IllegalStateException("websocket: response head or frame header too long");
        }
        pending = java.util.Arrays.copyOfRange(b, from, end);
    }

    private static int headEnd(byte[] b, int pos, int end) {
        for (int i = pos; i + 3 < end; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') {
                return i + 4;
            }
        }
        return -1;
    }

    private void checkUpgrade(String head) {
        String[] lines = head.split("\r\n");
        if (lines.length == 0 || !lines[0].matches("HTTP/1\\.1 101( .*)?")) {
            throw new IllegalStateException("websocket: upgrade refused: " + (lines.length == 0 ? "" : lines[0]));
        }
        String accept = null;
        String protocol = null;
        for (String l : lines) {
            int colon = l.indexOf(':');
            if (colon > 0) {
                String name = l.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT);
                String value = l.substring(colon + 1).trim();
                if (name.equals("sec-websocket-accept")) {
                    accept = value;
                } else if (name.equals("sec-websocket-protocol")) {
                    protocol = value;
                }
            }
        }
        if (!expectedAccept(key).equals(accept)) {
            throw new IllegalStateException("websocket: wrong Sec-WebSocket-Accept " + accept);
        }
        if (!"xmpp".equals(protocol)) {
            throw new IllegalStateException("websocket: server chose protocol " + protocol + ", not xmpp");
        }
    }

    static String expectedAccept(String key) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA-1").digest((key + GUID).getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void filterWrite(NextFilter next, IoSession session, WriteRequest request) {
        IoBuffer in = (IoBuffer) request.getMessage();
        byte[] b;
        int off;
        int len = in.remaining();
        if (in.hasArray()) {
            b = in.array();
            off = in.arrayOffset() + in.position();
        } else {
            b = new byte[len];
            in.get(b);
            off = 0;
        }
        request.setMessage(frame(OP_TEXT, b, off, len, stanzaNamespaceAt(b, off, len)));
        next.filterWrite(session, request);
    }

    /** Where to insert {@code xmlns='jabber:client'}: after the name of a message, presence or iq without xmlns; -1 for none. */
    static int stanzaNamespaceAt(byte[] b, int off, int len) {
        int nameEnd = -1;
        if (Bytes.equalsAscii(b, off, Math.min(off + 8, off + len), "<message")) {
            nameEnd = off + 8;
        } else if (Bytes.equalsAscii(b, off, Math.min(off + 9, off + len), "<presence")) {
            nameEnd = off + 9;
        } else if (Bytes.equalsAscii(b, off, Math.min(off + 3, off + len), "<iq")) {
            nameEnd = off + 3;
        }
        if (nameEnd < 0 || nameEnd >= off + len) {
            return -1;
        }
        byte after = b[nameEnd];
        if (after != ' ' && after != '>' && after != '/') {
            return -1;
        }
        int tagEnd = nameEnd;
        byte quote = 0;
        while (tagEnd < off + len) {
            byte x = b[tagEnd];
            if (quote != 0) {
                quote = x == quote ? 0 : quote;
            } else if (x == '\'' || x == '"') {
                quote = x;
            } else if (x == '>') {
                break;
            }
            tagEnd++;
        }
        return Bytes.contains(b, nameEnd, tagEnd, XMLNS_ATTR) ? -1 : nameEnd;
    }

    /** One masked client frame of {@code b[off, off+len)}, with {@link #CLIENT_NS} inserted at {@code nsAt} (or not). */
    private static IoBuffer frame(int op, byte[] b, int off, int len, int nsAt) {
        int payload = len + (nsAt < 0 ? 0 : CLIENT_NS.length);
        int header = 2 + (payload <= 125 ? 0 : payload <= 65535 ? 2 : 8) + 4;
        byte[] f = new byte[header + payload];
        f[0] = (byte) (0x80 | op);
        int p;
        if (payload <= 125) {
            f[1] = (byte) (0x80 | payload);
            p = 2;
        } else if (payload <= 65535) {
            f[1] = (byte) (0x80 | 126);
            f[2] = (byte) (payload >>> 8);
            f[3] = (byte) payload;
            p = 4;
        } else {
            f[1] = (byte) (0x80 | 127);
            for (int i = 0; i < 8; i++) {
                f[2 + i] = (byte) ((long) payload >>> (56 - 8 * i));
            }
            p = 10;
        }
        int mask = ThreadLocalRandom.current().nextInt(); // RFC 6455: unpredictable per frame
        f[p] = (byte) (mask >>> 24);
        f[p + 1] = (byte) (mask >>> 16);
        f[p + 2] = (byte) (mask >>> 8);
        f[p + 3] = (byte) mask;
        int m = p;
        p += 4;
        if (nsAt < 0) {
            System.arraycopy(b, off, f, p, len);
        } else {
            int head = nsAt - off;
            System.arraycopy(b, off, f, p, head);
            System.arraycopy(CLIENT_NS, 0, f, p + head, CLIENT_NS.length);
            System.arraycopy(b, nsAt, f, p + head + CLIENT_NS.length, len - head);
        }
        for (int i = 0; i < payload; i++) {
            f[p + i] ^= f[m + (i & 3)];
        }
        return IoBuffer.wrap(f);
    }
}

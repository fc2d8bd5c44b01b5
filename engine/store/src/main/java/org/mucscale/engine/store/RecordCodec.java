package org.mucscale.engine.store;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.zip.CRC32;

/**
 * The binary form of a record in the spill and write-ahead files and in dead letters: a frame
 * {@code [int length][int crc32][payload]}, payload = version byte, log time, then eight strings in modified UTF-8
 * with an int length (-1 for null). Modified UTF-8 keeps every Java string exactly, lone surrogates included,
 * which the database's own encoding may refuse; that is why a dead letter can always be parked in this form.
 * A torn frame at the end of a file (a crash mid-append) fails its length or CRC check and ends the read.
 */
final class RecordCodec {
    private static final byte VERSION = 1;
    static final int MAX_FRAME_BYTES = 256 * 1024 * 1024;

    private RecordCodec() {
    }

    /** Appends one framed record to {@code out}. */
    static void writeFrame(RoomLogRecord r, ByteArrayOutputStream out) {
        Buf payload = new Buf(r.estimatedBytes());
        payload.write(VERSION);
        payload.writeLong(r.logTimeMillis());
        payload.writeString(r.stanzaId());
        payload.writeString(r.roomJid());
        payload.writeString(r.senderNick());
        payload.writeString(r.senderJid());
        payload.writeString(r.body());
        payload.writeString(r.subject());
        payload.writeString(r.filterAction());
        payload.writeString(r.stanza());
        CRC32 crc = new CRC32();
        crc.update(payload.array(), 0, payload.size());
        writeInt(out, payload.size());
        writeInt(out, (int) crc.getValue());
        out.write(payload.array(), 0, payload.size());
    }

    static byte[] frame(RoomLogRecord r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(r.estimatedBytes() + 16);
        writeFrame(r, out);
        return out.toByteArray();
    }

    /** Reads the next frame; null at a clean end of input or at a torn/corrupt frame (the rest is ignored). */
    static RoomLogRecord readFrame(DataInputStream in) throws IOException {
        int length;
        try {
            length = in.readInt();
        } catch (EOFException end) {
            return null;
        }
        if (length <= 0 || length > MAX_FRAME_BYTES) {
            return null;
        }
        int crcValue;
        byte[] payload = new byte[length];
        try {
            crcValue = in.readInt();
            in.readFully(payload);
        } catch (EOFException torn) {
            return null;
        }
        CRC32 crc = new CRC32();
        crc.update(payload, 0, length);
        if ((int) crc.getValue() != crcValue) {
            return null;
        }
        return decode(payload);
    }

    static RoomLogRecord decode(byte[] payload) throws IOException {
        DataInputStream p = new DataInputStream(new java.io.ByteArrayInputStream(payload));
        byte version = p.readByte();
        if (version != VERSION) {
            throw new IOException("unknown record version " + version);
        }
        long logTime = p.readLong();
        String stanzaId = readString(p);
        String roomJid = readString(p);
        String nick = readString(p);
        String senderJid = readString(p);
        String body = readString(p);
        String subject = readString(p);
        String filterAction = readString(p);
        String stanza = readString(p);
        return new RoomLogRecord(stanzaId, roomJid, logTime, nick, senderJid, body, subject, filterAction, stanza);
    }

    /** Reads a whole framed record from bytes (dead-letter payloads). */
    static RoomLogRecord fromFrame(byte[] frame) throws IOException {
        RoomLogRecord r = readFrame(new DataInputStream(new java.io.ByteArrayInputStream(frame)));
        if (r == null) {
            throw new IOException("corrupt record frame");
        }
        return r;
    }

    private static String readString(DataInputStream in) throws IOException {
        int chars = in.readInt();
        if (chars < 0) {
            return null;
        }
        char[] out = new char[chars];
        for (int i = 0; i < chars; i++) {
            int b = in.readUnsignedByte();
            if (b < 0x80) {
                out[i] = (char) b;
            } else if ((b & 0xE0) == 0xC0) {
                out[i] = (char) (((b & 0x1F) << 6) | (in.readUnsignedByte() & 0x3F));
            } else {
                int b2 = in.readUnsignedByte();
                int b3 = in.readUnsignedByte();
                out[i] = (char) (((b & 0x0F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F));
            }
        }
        return new String(out);
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }

    /** A growable byte buffer without the synchronization of ByteArrayOutputStream. */
    private static final class Buf {
        private byte[] bytes;
        private int size;

        Buf(int initial) {
            bytes = new byte[Math.max(64, initial)];
        }

        void write(int b) {
            ensure(1);
            bytes[size++] = (byte) b;
        }

        void writeLong(long v) {
            ensure(8);
            for (int shift = 56; shift >= 0; shift -= 8) {
                bytes[size++] = (byte) (v >>> shift);
            }
        }

        void writeString(String s) {
            if (s == null) {
                writeIntValue(-1);
                return;
            }
            int n = s.length();
            writeIntValue(n);
            ensure(n * 3);
            for (int i = 0; i < n; i++) {
                char c = s.charAt(i);
                if (c != 0 && c < 0x80) {
                    bytes[size++] = (byte) c;
                } else if (c < 0x800) {
                    bytes[size++] = (byte) (0xC0 | (c >> 6));
                    bytes[size++] = (byte) (0x80 | (c & 0x3F));
                } else {
                    bytes[size++] = (byte) (0xE0 | (c >> 12));
                    bytes[size++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                    bytes[size++] = (byte) (0x80 | (c & 0x3F));
                }
            }
        }

        private void writeIntValue(int v) {
            ensure(4);
            bytes[size++] = (byte) (v >>> 24);
            bytes[size++] = (byte) (v >>> 16);
            bytes[size++] = (byte) (v >>> 8);
            bytes[size++] = (byte) v;
        }

        private void ensure(int more) {
            if (size + more > bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
            }
        }

        byte[] array() {
            return bytes;
        }

        int size() {
            return size;
        }
    }
}

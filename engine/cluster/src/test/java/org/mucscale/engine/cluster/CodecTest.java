package org.mucscale.engine.cluster;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.mucscale.engine.cluster.Trees.assertSameTree;

/**
 * The byte format under everything between nodes. Invariants pinned: every value round-trips exactly; the layout of
 * varints, i64 and strings is the documented one (other versions of mucscale read it); and any input at all decodes
 * or fails with {@link IllegalArgumentException}: never another exception, never a loop, never an allocation out of
 * proportion to the input.
 */
class CodecTest {

    private static byte[] bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return out;
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    private static byte[] varint(long v) {
        return new Codec.Out(0).varint(v).toBytes();
    }

    // ------------------------------------------------------------------------------------------ varint

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 127, 128, 255, 300, 16_383, 16_384, Integer.MAX_VALUE, 1L << 32, 1L << 56,
            Long.MAX_VALUE, -1, -128, Integer.MIN_VALUE, Long.MIN_VALUE})
    void varint_anyValue_roundTrips(long v) {
        byte[] b = new Codec.Out(0).varint(v).toBytes();
        Codec.In in = new Codec.In(b);
        assertThat(in.varint()).isEqualTo(v);
        assertThat(in.atEnd()).isTrue();
    }

    @Test
    void varint_layout_littleEndianSevenBitGroups() {
        assertThat(varint(0)).containsExactly(0x00);
        assertThat(varint(127)).containsExactly(0x7F);
        assertThat(varint(128)).containsExactly(bytes(0x80, 0x01));
        assertThat(varint(300)).containsExactly(bytes(0xAC, 0x02));
        assertThat(varint(16_384)).containsExactly(bytes(0x80, 0x80, 0x01));
        assertThat(varint(Long.MAX_VALUE)).hasSize(9);
        assertThat(varint(-1)).hasSize(10);
        assertThat(varint(Long.MIN_VALUE)).hasSize(10);
    }

    @Test
    void varint_moreThanTenBytes_refused() {
        byte[] b = bytes(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
        assertThatThrownBy(() -> new Codec.In(b).varint()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed varint");
    }

    @Test
    void varint_truncated_refused() {
        assertThatThrownBy(() -> new Codec.In(bytes(0x80)).varint()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> new Codec.In(new byte[0]).varint()).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------ count

    @Test
    void count_withinMessage_accepted() {
        Codec.In in = new Codec.In(bytes(3, 0, 0, 0));
        assertThat(in.count()).isEqualTo(3);
    }

    @Test
    void count_moreThanBytesLeft_refused() {
        assertThatThrownBy(() -> new Codec.In(bytes(4, 0, 0, 0)).count())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("count 4 exceeds");
    }

    @Test
    void count_twoToThe31_refusedWithoutAllocating() {
        byte[] b = concat(varint(1L << 31), new byte[16]);
        assertThatThrownBy(() -> new Codec.In(b).count()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Codec.In(concat(varint(Long.MAX_VALUE), new byte[16])).count())
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A ten-byte varint sets bit 63: a negative count must not pass the "fits in the message" check. */
    @Test
    void count_negative_refused() {
        for (long v : new long[] {-1, Integer.MIN_VALUE, Long.MIN_VALUE, -(1L << 33) + 3}) {
            byte[] b = concat(varint(v), new byte[16]);
            assertThatThrownBy(() -> new Codec.In(b).count()).as("count %s", v)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    // ------------------------------------------------------------------------------------------ i64, bool, u8

    @ParameterizedTest
    @ValueSource(longs = {0, 1, -1, 255, 256, Long.MAX_VALUE, Long.MIN_VALUE, 0x0102030405060708L})
    void i64_anyValue_roundTripsInEightBytes(long v) {
        byte[] b = new Codec.Out(0).i64(v).toBytes();
        assertThat(b).hasSize(8);
        Codec.In in = new Codec.In(b);
        assertThat(in.i64()).isEqualTo(v);
        assertThat(in.atEnd()).isTrue();
    }

    @Test
    void i64_layout_bigEndian() {
        assertThat(new Codec.Out(0).i64(0x0102030405060708L).toBytes())
                .containsExactly(bytes(1, 2, 3, 4, 5, 6, 7, 8));
    }

    @Test
    void i64_truncated_refused() {
        assertThatThrownBy(() -> new Codec.In(new byte[7]).i64()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void boolAndU8_values_roundTrip() {
        byte[] b = new Codec.Out(0).bool(true).bool(false).u8(0).u8(255).u8(256).toBytes();
        Codec.In in = new Codec.In(b);
        assertThat(in.bool()).isTrue();
        assertThat(in.bool()).isFalse();
        assertThat(in.u8()).isZero();
        assertThat(in.u8()).isEqualTo(255);
        assertThat(in.u8()).as("u8 keeps the low byte").isZero();
        assertThat(in.atEnd()).isTrue();
        assertThatThrownBy(in::u8).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------ strings

    private static String roundTrip(String s) {
        byte[] b = new Codec.Out(0).string(s).toBytes();
        Codec.In in = new Codec.In(b);
        String back = in.string();
        assertThat(in.atEnd()).isTrue();
        return back;
    }

    @Test
    void string_null_roundTripsAsOneZeroByte() {
        assertThat(new Codec.Out(0).string(null).toBytes()).containsExactly(0);
        assertThat(roundTrip((String) null)).isNull();
    }

    @Test
    void string_empty_roundTripsAsEmptyNotNull() {
        assertThat(new Codec.Out(0).string("").toBytes()).containsExactly(1);
        assertThat(roundTrip("")).isNotNull().isEmpty();
    }

    @Test
    void string_ascii_lengthPlusOneThenBytes() {
        assertThat(new Codec.Out(0).string("abc").toBytes()).containsExactly(bytes(4, 'a', 'b', 'c'));
        assertThat(roundTrip("room@conference.example.org/nick")).isEqualTo("room@conference.example.org/nick");
    }

    @Test
    void string_fourByteUtf8_roundTripsWithByteLength() {
        String s = "😀";
        assertThat(new Codec.Out(0).string(s).toBytes())
                .containsExactly(concat(bytes(5), s.getBytes(StandardCharsets.UTF_8)));
        String mixed = "a😀é中\u0000\uFFFF🎉z";
        assertThat(roundTrip(mixed)).isEqualTo(mixed);
    }

    @Test
    void string_100KB_roundTripsWithMultiByteLength() {
        StringBuilder sb = new StringBuilder();
        Random r = new Random(7);
        while (sb.length() < 100_000) {
            sb.append((char) ('a' + r.nextInt(26)));
            if (r.nextInt(50) == 0) {
                sb.append("😀");
            }
        }
        String s = sb.toString();
        assertThat(roundTrip(s)).isEqualTo(s);
        Codec.Out out = new Codec.Out(16);
        out.string(s).string("after");
        Codec.In in = new Codec.In(out.toBytes());
        assertThat(in.string()).isEqualTo(s);
        assertThat(in.string()).isEqualTo("after");
        assertThat(out.length()).isEqualTo(out.toBytes().length);
    }

    @Test
    void string_lengthBeyondMessage_refused() {
        assertThatThrownBy(() -> new Codec.In(bytes(5, 'a', 'b')).string())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
    }

    /** pos + length must not overflow into a "fits" answer (it used to, and String's constructor threw instead). */
    @Test
    void string_lengthNearIntMax_refusedAsIllegalArgument() {
        for (long len : new long[] {Integer.MAX_VALUE, Integer.MAX_VALUE - 1L, Integer.MAX_VALUE - 5L}) {
            byte[] b = concat(bytes(0), varint(len + 1), bytes('a', 'b', 'c'));
            Codec.In in = new Codec.In(b);
            in.u8();
            assertThatThrownBy(in::string).as("length %s", len).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** A length that does not fit in an int must be refused, not cut to its low 32 bits. */
    @Test
    void string_lengthBeyondIntRange_refusedNotTruncated() {
        for (long len : new long[] {(1L << 32) + 3, (1L << 33) + 3, Long.MAX_VALUE - 1}) {
            byte[] b = concat(varint(len + 1), bytes('a', 'b', 'c'));
            assertThatThrownBy(() -> new Codec.In(b).string()).as("length %s", len)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        for (long n : new long[] {-1, Long.MIN_VALUE, -(1L << 32) + 4}) {
            byte[] b = concat(varint(n), bytes('a', 'b', 'c'));
            assertThatThrownBy(() -> new Codec.In(b).string()).as("length field %s", n)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void jid_nullAndValue_roundTrip_invalidRefused() {
        Jid j = Jid.parse("user@Example.ORG/res");
        Codec.In in = new Codec.In(new Codec.Out(0).jid(j).jid(null).string("@").toBytes());
        assertThat(in.jid()).isEqualTo(j);
        assertThat(in.jid()).isNull();
        assertThatThrownBy(in::jid).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------ elements

    private static XmlElement roundTrip(XmlElement e) {
        byte[] b = new Codec.Out(0).element(e).toBytes();
        Codec.In in = new Codec.In(b);
        XmlElement back = in.element();
        assertThat(in.atEnd()).isTrue();
        return back;
    }

    @Test
    void element_null_roundTripsAsOneZeroByte() {
        assertThat(new Codec.Out(0).element(null).toBytes()).containsExactly(0);
        assertThat(roundTrip((XmlElement) null)).isNull();
    }

    @Test
    void element_stanzaTree_roundTripsExactly() {
        XmlElement e = Trees.sampleStanza();
        XmlElement back = roundTrip(e);
        assertSameTree(back, e);
        assertThat(back.toXml()).isEqualTo(e.toXml());
    }

    @Test
    void element_namespaces_nullEmptyInheritedAndOwnKeptApart() {
        XmlElement e = XmlElement.builder("a", null)
                .child(XmlElement.builder("b", "").build())
                .child(XmlElement.builder("c", "urn:x").child(XmlElement.builder("d", "urn:x").build())
                        .child(XmlElement.builder("e", null).build()).build())
                .build();
        assertSameTree(roundTrip(e), e);
    }

    @Test
    void element_attributesWithSpecialCharacters_roundTripVerbatimInOrder() {
        XmlElement e = XmlElement.builder("x")
                .attribute("z", "<&>\"'")
                .attribute("a", "")
                .attribute("m", "line\nbreak\ttab\r 😀 ]]>")
                .attribute("xml:lang", "en")
                .build();
        XmlElement back = roundTrip(e);
        assertSameTree(back, e);
        assertThat(back.attribute("z")).isEqualTo("<&>\"'");
        assertThat(back.attribute("a")).isEmpty();
    }

    @Test
    void element_mixedTextChildren_keptAsSeparateNodes() {
        XmlElement e = XmlElement.builder("p").text("a").text("b")
                .child(XmlElement.builder("br").build()).text("<c> & d").text("😀").build();
        XmlElement back = roundTrip(e);
        assertSameTree(back, e);
        assertThat(back.children()).containsExactly("a", "b", back.child("br"), "<c> & d", "😀");
    }

    @Test
    void element_manyChildrenAndAttributes_roundTrip() {
        XmlElement.Builder b = XmlElement.builder("many", "urn:many");
        for (int i = 0; i < 300; i++) {
            b.attribute("a" + i, "v" + i);
            b.child(XmlElement.builder("c" + i).attribute("i", Integer.toString(i)).text("t" + i).build());
            b.text("between " + i);
        }
        XmlElement e = b.build();
        assertSameTree(roundTrip(e), e);
    }

    private static XmlElement chain(int elements) {
        XmlElement e = XmlElement.builder("leaf").text("deep").build();
        for (int i = 1; i < elements; i++) {
            e = XmlElement.builder("n" + i).child(e).build();
        }
        return e;
    }

    /** Depth is counted from the root (depth 0): MAX_DEPTH + 1 nested elements decode, one more is refused. */
    @Test
    void element_nestedToMaxDepth_decodes() {
        XmlElement e = chain(Codec.MAX_DEPTH + 1);
        assertSameTree(roundTrip(e), e);
    }

    @Test
    void element_nestedDeeperThanMaxDepth_refused() {
        for (int n : new int[] {Codec.MAX_DEPTH + 2, Codec.MAX_DEPTH * 4}) {
            byte[] b = new Codec.Out(0).element(chain(n)).toBytes();
            assertThatThrownBy(() -> new Codec.In(b).element()).as("%s elements", n)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("deeper than " + Codec.MAX_DEPTH);
        }
    }

    @Test
    void element_deeplyNestedGarbage_refusedWithoutStackOverflow() {
        // 1, "a", null namespace, 0 attributes, 1 child, child tag 1 ... repeated: claims nesting 100,000 deep
        Codec.Out out = new Codec.Out(0).u8(1);
        for (int i = 0; i < 100_000; i++) {
            out.string("a").string(null).varint(0).varint(1).u8(1);
        }
        byte[] b = out.toBytes();
        assertThatThrownBy(() -> new Codec.In(b).element()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void element_nullOrEmptyName_refused() {
        byte[] nullName = new Codec.Out(0).u8(1).string(null).string(null).varint(0).varint(0).toBytes();
        byte[] emptyName = new Codec.Out(0).u8(1).string("").string(null).varint(0).varint(0).toBytes();
        assertThatThrownBy(() -> new Codec.In(nullName).element()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Codec.In(emptyName).element()).isInstanceOf(IllegalArgumentException.class);
    }

    /** A null attribute name is not an element the engine could have written; it must be refused on decoding. */
    @Test
    void element_nullAttributeName_refused() {
        byte[] one = new Codec.Out(0).u8(1).string("x").string(null).varint(1).string(null).string("v")
                .varint(0).toBytes();
        byte[] two = new Codec.Out(0).u8(1).string("x").string(null).varint(2).string(null).string("v")
                .string("b").string("w").varint(0).toBytes();
        assertThatThrownBy(() -> new Codec.In(one).element()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Codec.In(two).element()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void element_attributeCountTwoToThe31_refused() {
        byte[] b = concat(new Codec.Out(0).u8(1).string("x").string(null).varint(1L << 31).toBytes(),
                new byte[64]);
        assertThatThrownBy(() -> new Codec.In(b).element()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exceeds");
    }

    @Test
    void element_everyTruncation_refused() {
        byte[] full = new Codec.Out(0).element(Trees.sampleStanza()).toBytes();
        for (int len = 0; len < full.length; len++) {
            byte[] cut = Arrays.copyOf(full, len);
            assertThatThrownBy(() -> new Codec.In(cut).element()).as("first %s of %s bytes", len, full.length)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void out_smallInitialCapacity_growsToAnySize() {
        Codec.Out out = new Codec.Out(0);
        for (int i = 0; i < 10_000; i++) {
            out.varint(i).i64(i).string("s" + i).bool(i % 2 == 0);
        }
        Codec.In in = new Codec.In(out.toBytes());
        for (int i = 0; i < 10_000; i++) {
            assertThat(in.varint()).isEqualTo(i);
            assertThat(in.i64()).isEqualTo(i);
            assertThat(in.string()).isEqualTo("s" + i);
            assertThat(in.bool()).isEqualTo(i % 2 == 0);
        }
        assertThat(in.atEnd()).isTrue();
    }

    // ------------------------------------------------------------------------------------------ fuzz

    private static final Map<String, Function<byte[], Object>> DECODERS = new LinkedHashMap<>();

    static {
        DECODERS.put("Wire.decode", Wire::decode);
        DECODERS.put("RoomImages.decodeImage", RoomImages::decodeImage);
        DECODERS.put("RoomImages.decodeTail", RoomImages::decodeTail);
        DECODERS.put("RoomImages.decodeOccupant", RoomImages::decodeOccupant);
        DECODERS.put("RoomImages.decodeSlots", RoomImages::decodeSlots);
    }

    private static byte[] mutate(byte[] valid, Random r) {
        List<Byte> b = new ArrayList<>(valid.length + 8);
        for (byte x : valid) {
            b.add(x);
        }
        int edits = 1 + r.nextInt(4);
        for (int e = 0; e < edits; e++) {
            int at = b.isEmpty() ? 0 : r.nextInt(b.size());
            switch (r.nextInt(8)) {
                case 0 -> { if (!b.isEmpty()) { b.set(at, (byte) r.nextInt(256)); } }
                case 1 -> { if (!b.isEmpty()) { b.set(at, (byte) (b.get(at) ^ (1 << r.nextInt(8)))); } }
                case 2 -> b.add(at, (byte) r.nextInt(256));
                case 3 -> { if (!b.isEmpty()) { b.remove(at); } }
                case 4 -> { while (b.size() > at) { b.remove(b.size() - 1); } }
                case 5 -> { if (!b.isEmpty()) { b.set(at, new byte[] {0, (byte) 0xFF, (byte) 0x80, 0x7F}[r.nextInt(4)]); } }
                case 6 -> { // a huge varint in place of whatever was there
                    for (byte x : varint(r.nextBoolean() ? (1L << 31) + r.nextInt(9) : -1 - r.nextInt(9))) {
                        b.add(at++, x);
                    }
                }
                default -> { // duplicate a slice (repeats structure)
                    int len = Math.min(b.size() - at, 1 + r.nextInt(16));
                    b.addAll(at, new ArrayList<>(b.subList(at, at + len)));
                }
            }
        }
        byte[] out = new byte[b.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = b.get(i);
        }
        return out;
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @Test
    void decoders_randomAndMutatedInput_onlyIllegalArgumentOrValue() {
        List<byte[]> seeds = Samples.validEncodings();
        for (byte[] seed : seeds) { // the seeds themselves decode with at least one decoder
            boolean any = false;
            for (Function<byte[], Object> d : DECODERS.values()) {
                try {
                    d.apply(seed);
                    any = true;
                } catch (RuntimeException otherFormat) {
                    // another decoder's format (what it throws is the fuzz's business below)
                }
            }
            assertThat(any).isTrue();
        }
        Map<String, String> failures = new LinkedHashMap<>();
        long[] worstAllocation = {0};
        String[] worstInput = {""};
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            Random r = new Random(0x5EED_C0DECL);
            for (int i = 0; i < 20_000; i++) {
                byte[] input;
                if (i % 2 == 0) {
                    input = new byte[r.nextInt(96)];
                    r.nextBytes(input);
                    if (input.length > 0 && r.nextBoolean()) {
                        input[0] = (byte) (1 + r.nextInt(3)); // a real kind (and version 1 for room state)
                    }
                } else {
                    input = mutate(seeds.get(r.nextInt(seeds.size())), r);
                }
                for (Map.Entry<String, Function<byte[], Object>> d : DECODERS.entrySet()) {
                    long before = allocatedBytes();
                    try {
                        d.getValue().apply(input);
                    } catch (IllegalArgumentException expected) {
                        // the one allowed failure
                    } catch (Throwable t) {
                        String hex = HexFormat.of().formatHex(input);
                        failures.putIfAbsent(d.getKey() + " threw " + t.getClass().getName(), t.getMessage()
                                + " on " + (hex.length() > 160 ? hex.substring(0, 160) + "..." : hex));
                    }
                    long allocated = allocatedBytes() - before;
                    if (allocated > worstAllocation[0]) {
                        worstAllocation[0] = allocated;
                        worstInput[0] = d.getKey() + " on " + input.length + " bytes";
                    }
                }
            }
        });
        assertThat(failures).as("decoders threw something other than IllegalArgumentException").isEmpty();
        // inputs are at most a few hundred bytes: a decoder allocating megabytes believed a length it should not have
        assertThat(worstAllocation[0]).as("most bytes allocated by one decode (%s)", worstInput[0])
                .isLessThan(1 << 20);
    }
}

package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The spill/write-ahead/dead-letter record format: exact for any Java string, torn tails ignored. */
class RecordCodecTest {
    private static final RoomLogRecord ODD = new RoomLogRecord("id\u0000\uD800", "r@muc", -5L, "n\uDC00ick",
            null, "emoji \uD83D\uDE00 nul \u0000 bmp \u20AC", "", "MASKED", "x".repeat(70_000));

    @Test
    void frame_anyJavaString_roundTripsExactly() throws IOException {
        assertThat(RecordCodec.fromFrame(RecordCodec.frame(ODD))).isEqualTo(ODD);
    }

    @Test
    void readFrame_tornOrCorruptTail_endsTheReadKeepingWholeFrames() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RoomLogRecord first = RoomLogRecord.message("1", "r@muc", 1L, "n", null, "first");
        RecordCodec.writeFrame(first, out);
        RecordCodec.writeFrame(ODD, out);
        byte[] all = out.toByteArray();
        byte[] torn = Arrays.copyOf(all, all.length - 10);
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(torn));
        assertThat(RecordCodec.readFrame(in)).isEqualTo(first);
        assertThat(RecordCodec.readFrame(in)).isNull();

        byte[] flipped = all.clone();
        flipped[flipped.length - 1] ^= 1;
        in = new DataInputStream(new ByteArrayInputStream(flipped));
        assertThat(RecordCodec.readFrame(in)).isEqualTo(first);
        assertThat(RecordCodec.readFrame(in)).as("CRC mismatch").isNull();
    }

    @Test
    void fromFrame_garbage_isRefused() {
        assertThatThrownBy(() -> RecordCodec.fromFrame(new byte[] {0, 0, 0, 3, 1, 2}))
                .isInstanceOf(IOException.class);
    }
}

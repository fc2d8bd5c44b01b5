package org.mucscale.openfire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Openfire node ids (bytes) as the engine's node ids (text of letters, digits, '-' and ':'), and back.
 *
 * <p>Openfire's node id is a random UUID's text in UTF-8 ({@code XMPPServer.initClusterNodeID}), which passes through
 * unchanged; but an administrator may set any text as XML property {@code clustering.nodeid}. Ids outside the
 * engine's alphabet become {@code x:} followed by the lower-case hex of their bytes. Every node computes the same text
 * for the same bytes, so all nodes agree on ids; {@link #bytes} reverses it: an id that looks like {@code x:<hex>} is
 * taken as hex only when the bytes it names are outside the alphabet (ids inside it are never encoded). The one
 * ambiguity left needs an administrator to name one node literally {@code x:2020} and another two spaces.
 */
final class NodeIds {

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9:-]+");
    private static final Pattern ENCODED = Pattern.compile("x:(?:[0-9a-f]{2})+");
    private static final String PREFIX = "x:";

    private NodeIds() {
    }

    static String engineId(byte[] nodeId) {
        String text = new String(nodeId, StandardCharsets.UTF_8);
        if (PLAIN.matcher(text).matches() && sameBytes(text, nodeId)) {
            return text;
        }
        return PREFIX + HexFormat.of().formatHex(nodeId);
    }

    static byte[] bytes(String engineId) {
        if (ENCODED.matcher(engineId).matches()) {
            byte[] decoded = HexFormat.of().parseHex(engineId, PREFIX.length(), engineId.length());
            String text = new String(decoded, StandardCharsets.UTF_8);
            if (!PLAIN.matcher(text).matches() || !sameBytes(text, decoded)) {
                return decoded;
            }
        }
        return engineId.getBytes(StandardCharsets.UTF_8);
    }

    /** False for bytes that are not valid UTF-8 (decoding replaced something). */
    private static boolean sameBytes(String text, byte[] bytes) {
        return Arrays.equals(text.getBytes(StandardCharsets.UTF_8), bytes);
    }
}

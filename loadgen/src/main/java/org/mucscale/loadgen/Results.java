package org.mucscale.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/** Writes a run's results as JSON (everything), CSV (the time series) and reads JSON back for comparisons. */
public final class Results {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Results() {
    }

    public static void writeJson(ObjectNode result, Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            MAPPER.writeValue(file.toFile(), result);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** One row per sample; columns are the series fields. */
    public static void writeCsv(ObjectNode result, Path file) {
        StringBuilder sb = new StringBuilder();
        JsonNode series = result.get("series");
        boolean header = false;
        for (JsonNode p : series) {
            if (!header) {
                Iterator<String> names = p.fieldNames();
                boolean first = true;
                while (names.hasNext()) {
                    sb.append(first ? "" : ",").append(names.next());
                    first = false;
                }
                sb.append('\n');
                header = true;
            }
            boolean first = true;
            for (Iterator<Map.Entry<String, JsonNode>> it = p.fields(); it.hasNext(); ) {
                JsonNode v = it.next().getValue();
                sb.append(first ? "" : ",");
                sb.append(v.isTextual() ? '"' + v.asText().replace("\"", "\"\"") + '"' : v.asText());
                first = false;
            }
            sb.append('\n');
        }
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    public static ObjectNode readJson(Path file) {
        try {
            JsonNode n = MAPPER.readTree(file.toFile());
            if (!n.isObject() || !"mucscale-loadgen".equals(n.path("tool").asText())) {
                throw new ScenarioException(file + " is not a mucscale-loadgen results file");
            }
            return (ObjectNode) n;
        } catch (IOException e) {
            throw new ScenarioException("cannot read results file " + file + ": " + e.getMessage(), e);
        }
    }

    /** A short human summary (printed at the end of a run). */
    public static String summaryText(ObjectNode result) {
        JsonNode s = result.get("summary");
        JsonNode lat = s.get("latencyMs");
        return String.format(Locale.ROOT,
                "%s (%s) stopped by %s: users %d in %d rooms (largest %d), logged in %d, joined %d%n"
                        + "  sent %,d messages, deliveries %,d of %,d expected, lost %d, duplicates %d, reordered %d%n"
                        + "  latency ms p50 %.2f p90 %.2f p99 %.2f p99.9 %.2f max %.2f%n"
                        + "  best level passing p99 <= %.0f ms: %,.0f deliveries/s; generator CPU %.2f us/delivery%s%n"
                        + "  connect p99 %.1f ms, join p99 %.1f ms, %.0f joins/s over %.1f ms, owner join re-sends %d, errors %d %s",
                result.get("label").asText(), result.get("scenarioName").asText(), result.get("stoppedBy").asText(),
                s.get("users").asInt(), s.get("rooms").asInt(), s.get("largestRoom").asInt(), s.get("loggedIn").asLong(),
                s.get("joined").asLong(), s.get("messagesSent").asLong(), s.get("deliveries").asLong(),
                s.get("expectedDeliveries").asLong(), s.get("lost").asLong(), s.get("duplicates").asLong(),
                s.get("reordered").asLong(), lat.get("p50").asDouble(), lat.get("p90").asDouble(),
                lat.get("p99").asDouble(), lat.get("p999").asDouble(), lat.get("max").asDouble(),
                s.get("p99ThresholdMs").asDouble(), s.get("maxDeliveriesPerSecPassing").asDouble(),
                s.get("genCpuUsPerDelivery").asDouble(),
                s.get("serverCpuUsPerDelivery").asDouble() < 0 ? ""
                        : String.format(Locale.ROOT, ", server CPU %.2f us/delivery, server RSS max %.0f MB",
                        s.get("serverCpuUsPerDelivery").asDouble(), s.get("serverRssMbMax").asDouble()),
                s.get("connectMs").get("p99").asDouble(), s.get("joinMs").get("p99").asDouble(),
                s.path("joinsPerSec").asDouble(-1), s.path("joinSpanMs").asDouble(-1), s.get("ownerJoinResends").asLong(), s.get("errors").asLong(),
                result.get("errors").size() == 0 ? "" : result.get("errors").toString()) + profileLines(result);
    }

    /** One line per client profile when the run had more than plain TCP clients (issue 41). */
    private static String profileLines(ObjectNode result) {
        JsonNode byProfile = result.path("profiles").path("byProfile");
        if (byProfile.size() == 0 || (byProfile.size() == 1 && byProfile.has("tcp"))) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        byProfile.fields().forEachRemaining(e -> {
            JsonNode p = e.getValue();
            sb.append(String.format(Locale.ROOT, "%n  profile %-11s %5d clients, %,d deliveries; active p50 %.2f p99 %.2f ms",
                    e.getKey(), p.get("clients").asInt(), p.get("deliveries").asLong(),
                    p.path("active").path("p50Ms").asDouble(), p.path("active").path("p99Ms").asDouble()));
            for (String kind : new String[] {"inactive", "redelivered"}) {
                if (p.has(kind)) {
                    sb.append(String.format(Locale.ROOT, "; %s %,d, p99 %.2f ms", kind,
                            p.get(kind).get("deliveries").asLong(), p.get(kind).get("p99Ms").asDouble()));
                }
            }
        });
        JsonNode sm = result.path("profiles").path("streamManagement");
        if (sm.path("enabled").asLong() > 0) {
            sb.append(String.format(Locale.ROOT, "%n  stream management: %d enabled, %d cut, %d resumed, %d failed to resume",
                    sm.get("enabled").asLong(), sm.get("cuts").asLong(), sm.get("resumed").asLong(),
                    sm.get("resumeFailed").asLong()));
        }
        return sb.toString();
    }
}

package org.mucscale.loadgen;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a scenario: the built-in defaults, then a built-in scenario or a JSON file on top, then {@code key=value}
 * overrides. Every key must already exist in the defaults and keep its type; every value is range-checked; errors
 * name the key, the value given and what is allowed.
 */
public final class ScenarioLoader {
    /** The scenarios shipped in the jar, in the order {@code list} shows them. */
    public static final List<String> BUILT_IN = List.of("smoke", "ref-5000", "rooms50", "joinstorm", "soak", "abuse",
            "modern-mix", "ref-5000-sm", "ref-5000-csi", "ref-5000-ws", "ref-5000-tls", "ref-5000-modern-mix");

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
    /** Array keys whose elements are numbers (all other arrays hold strings). */
    private static final Set<String> NUMBER_ARRAYS = Set.of("levels.ratesPerSec");

    private ScenarioLoader() {
    }

    /** A built-in name ({@link #BUILT_IN}) or a path to a JSON file, with overrides applied. */
    public static Scenario load(String nameOrPath, List<String> overrides) {
        String json;
        if (BUILT_IN.contains(nameOrPath)) {
            json = resource(nameOrPath + ".json");
        } else {
            Path p = Path.of(nameOrPath);
            if (!Files.isRegularFile(p)) {
                throw new ScenarioException("no built-in scenario and no file named '" + nameOrPath
                        + "' (built-in: " + String.join(", ", BUILT_IN) + ")");
            }
            try {
                json = Files.readString(p, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new ScenarioException("cannot read scenario file " + p + ": " + e.getMessage(), e);
            }
        }
        return fromJson(json, overrides);
    }

    /** Parses scenario JSON over the defaults and applies overrides ({@code a.b=value}). */
    public static Scenario fromJson(String json, List<String> overrides) {
        ObjectNode tree = (ObjectNode) parse(resource("defaults.json"), "built-in defaults");
        JsonNode given = parse(json, "scenario");
        if (!given.isObject()) {
            throw new ScenarioException("a scenario must be a JSON object, was " + given.getNodeType());
        }
        merge(tree, (ObjectNode) given, "");
        for (String o : overrides) {
            applyOverride(tree, o);
        }
        Scenario s;
        try {
            s = MAPPER.treeToValue(tree, Scenario.class);
        } catch (JsonProcessingException e) {
            throw new ScenarioException("scenario does not fit the expected shape: " + e.getOriginalMessage(), e);
        }
        validate(s);
        return s;
    }

    /** The scenario as JSON (for the results file, so every run records exactly what it ran). */
    public static JsonNode toTree(Scenario s) {
        return MAPPER.valueToTree(s);
    }

    private static JsonNode parse(String json, String what) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new ScenarioException(what + " is not valid JSON: " + e.getOriginalMessage()
                    + (e.getLocation() != null ? " at line " + e.getLocation().getLineNr()
                    + ", column " + e.getLocation().getColumnNr() : ""), e);
        }
    }

    private static String resource(String name) {
        try (InputStream in = ScenarioLoader.class.getResourceAsStream("scenarios/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource scenarios/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read resource " + name, e);
        }
    }

    private static void merge(ObjectNode base, ObjectNode given, String prefix) {
        Iterator<Map.Entry<String, JsonNode>> it = given.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = prefix + e.getKey();
            JsonNode old = base.get(e.getKey());
            if (old == null) {
                throw new ScenarioException("unknown key '" + key + "'" + known(base, prefix));
            }
            JsonNode value = e.getValue();
            if (old.isObject()) {
                if (!value.isObject()) {
                    throw new ScenarioException("key '" + key + "' must be an object" + known((ObjectNode) old, key + "."));
                }
                merge((ObjectNode) old, (ObjectNode) value, key + ".");
            } else {
                checkType(key, old, value);
                base.set(e.getKey(), value);
            }
        }
    }

    private static void checkType(String key, JsonNode old, JsonNode value) {
        boolean ok;
        if (old.isIntegralNumber()) {
            ok = value.isIntegralNumber();
        } else if (old.isNumber()) {
            ok = value.isNumber();
        } else if (old.isBoolean()) {
            ok = value.isBoolean();
        } else if (old.isTextual()) {
            ok = value.isTextual();
        } else if (old.isArray()) {
            ok = value.isArray();
            if (ok) {
                for (JsonNode el : value) {
                    if (NUMBER_ARRAYS.contains(key) ? !el.isNumber() : !el.isTextual()) {
                        throw new ScenarioException("key '" + key + "' must be a list of "
                                + (NUMBER_ARRAYS.contains(key) ? "numbers" : "strings") + ", found " + el);
                    }
                }
            }
        } else {
            ok = true;
        }
        if (!ok) {
            throw new ScenarioException("key '" + key + "' must be " + typeName(old, key) + ", was " + value);
        }
    }

    private static String typeName(JsonNode old, String key) {
        if (old.isIntegralNumber()) {
            return "a whole number";
        }
        if (old.isNumber()) {
            return "a number";
        }
        if (old.isBoolean()) {
            return "true or false";
        }
        if (old.isArray()) {
            return NUMBER_ARRAYS.contains(key) ? "a list of numbers" : "a list of strings";
        }
        return "a string";
    }

    private static String known(ObjectNode node, String prefix) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(n -> names.add(prefix + n));
        return " (known keys: " + String.join(", ", names) + ")";
    }

    static void applyOverride(ObjectNode tree, String override) {
        int eq = override.indexOf('=');
        if (eq <= 0) {
            throw new ScenarioException("override '" + override + "' must look like key=value, e.g. users=100");
        }
        String key = override.substring(0, eq).trim();
        String text = override.substring(eq + 1).trim();
        String[] parts = key.split("\\.");
        ObjectNode parent = tree;
        String prefix = "";
        for (int i = 0; i < parts.length - 1; i++) {
            JsonNode child = parent.get(parts[i]);
            if (child == null || !child.isObject()) {
                throw new ScenarioException("unknown key '" + key + "'" + known(parent, prefix));
            }
            prefix += parts[i] + ".";
            parent = (ObjectNode) child;
        }
        String leaf = parts[parts.length - 1];
        JsonNode old = parent.get(leaf);
        if (old == null) {
            throw new ScenarioException("unknown key '" + key + "'" + known(parent, prefix));
        }
        if (old.isObject()) {
            throw new ScenarioException("key '" + key + "' is a group; set one of its keys" + known((ObjectNode) old, key + "."));
        }
        JsonNodeFactory f = JsonNodeFactory.instance;
        JsonNode value;
        try {
            if (old.isIntegralNumber()) {
                value = f.numberNode(Long.parseLong(text));
            } else if (old.isNumber()) {
                value = f.numberNode(Double.parseDouble(text));
            } else if (old.isBoolean()) {
                if (!text.equals("true") && !text.equals("false")) {
                    throw new NumberFormatException();
                }
                value = f.booleanNode(Boolean.parseBoolean(text));
            } else if (old.isArray()) {
                ArrayNode arr = f.arrayNode();
                if (!text.isEmpty()) {
                    for (String el : text.split(",")) {
                        if (NUMBER_ARRAYS.contains(key)) {
                            arr.add(Double.parseDouble(el.trim()));
                        } else {
                            arr.add(el.trim());
                        }
                    }
                }
                value = arr;
            } else {
                value = f.textNode(text);
            }
        } catch (NumberFormatException e) {
            throw new ScenarioException("key '" + key + "' must be " + typeName(old, key) + ", was '" + text + "'");
        }
        parent.set(leaf, value);
    }

    private static void validate(Scenario s) {
        require(s.users() >= 2 && s.users() <= 1_000_000, "users", s.users(), "2 to 1000000");
        Scenario.Server sv = s.server();
        require(sv.host() != null && !sv.host().isBlank(), "server.host", sv.host(), "a host name or address");
        require(sv.port() >= 1 && sv.port() <= 65535, "server.port", sv.port(), "1 to 65535");
        require(sv.domain() != null && !sv.domain().isBlank(), "server.domain", sv.domain(), "the XMPP domain");
        require(sv.mucDomain() != null && !sv.mucDomain().isBlank(), "server.mucDomain", sv.mucDomain(), "the MUC service domain");
        require(oneOf(sv.tls(), "none", "starttls", "required"), "server.tls", sv.tls(), "none, starttls or required");
        require(oneOf(sv.sasl(), "PLAIN", "SCRAM-SHA-1"), "server.sasl", sv.sasl(), "PLAIN or SCRAM-SHA-1");
        Scenario.Accounts a = s.accounts();
        require(simpleName(a.prefix()), "accounts.prefix", a.prefix(), "lower-case letters, digits, '-' or '_'");
        require(a.password() != null && !a.password().isEmpty(), "accounts.password", a.password(), "a non-empty password");
        require(a.firstIndex() >= 0, "accounts.firstIndex", a.firstIndex(), "0 or more");
        require(validShard(a), "accounts.shard", a.shard(), "k/n with 0 <= k < n <= 64 (0/1: not sharded)");
        if (a.shardCount() > 1) {
            require(s.abuse().attackers() == 0, "abuse.attackers", s.abuse().attackers(), "0 in a sharded run (accounts.shard)");
        }
        List<String> owners = a.owners();
        require(owners.isEmpty() || (owners.size() == a.shardCount() && a.shardCount() > 1
                        && Set.copyOf(owners).size() == owners.size() && !owners.contains("")),
                "accounts.shardOwners", a.shardOwners(),
                "empty (shard by slot) or as many distinct cluster member names as accounts.shard's n ("
                        + a.shardCount() + "), comma-separated, the k-th being the node shard k connects to");
        Scenario.Rooms r = s.rooms();
        require(simpleName(r.prefix()), "rooms.prefix", r.prefix(), "lower-case letters, digits, '-' or '_'");
        require(r.size() >= 0 && r.size() <= s.users(), "rooms.size", r.size(), "0 (use count) to users (" + s.users() + ")");
        if (r.size() == 0) {
            require(r.count() >= 1 && r.count() <= s.users() / 2, "rooms.count", r.count(),
                    "1 to users/2 (" + s.users() / 2 + ") so every room holds at least two users");
        }
        require(r.size() != 1, "rooms.size", r.size(), "0 or at least 2");
        require(r.zipfExponent() >= 0 && r.zipfExponent() <= 5, "rooms.zipfExponent", r.zipfExponent(), "0 to 5");
        require(r.largest() >= 0 && r.largest() <= s.users(), "rooms.largest", r.largest(), "0 (pure Zipf) to users (" + s.users() + ")");
        if (r.largest() > 0 && r.size() == 0 && r.count() > 1) {
            require(s.users() - r.largest() >= 2 * (r.count() - 1), "rooms.largest", r.largest(),
                    "at most users - 2*(count-1) = " + (s.users() - 2 * (r.count() - 1)) + " so the other rooms keep two users each");
        }
        Scenario.Connect c = s.connect();
        require(c.sourceAddresses() >= 1 && c.sourceAddresses() <= 254, "connect.sourceAddresses", c.sourceAddresses(), "1 to 254");
        require(c.processors() >= 1 && c.processors() <= 64, "connect.processors", c.processors(), "1 to 64");
        require(c.loginTimeoutMs() >= 100 && c.loginTimeoutMs() <= 600_000, "connect.loginTimeoutMs", c.loginTimeoutMs(), "100 to 600000");
        require(c.maxPendingLogins() >= 1 && c.maxPendingLogins() <= 100_000, "connect.maxPendingLogins", c.maxPendingLogins(), "1 to 100000");
        require(c.connectionsPerSec() >= 1 && c.connectionsPerSec() <= 100_000, "connect.connectionsPerSec", c.connectionsPerSec(), "1 to 100000");
        Scenario.Join j = s.join();
        require(oneOf(j.mode(), "onConnect", "afterAllConnected"), "join.mode", j.mode(), "onConnect or afterAllConnected");
        require(j.timeoutMs() >= 100 && j.timeoutMs() <= 600_000, "join.timeoutMs", j.timeoutMs(), "100 to 600000");
        require(j.resendAfterMs() >= 50 && j.resendAfterMs() <= 600_000, "join.resendAfterMs", j.resendAfterMs(), "50 to 600000");
        Scenario.Messages m = s.messages();
        require(oneOf(m.schedule(), "fixed", "poisson"), "messages.schedule", m.schedule(), "fixed or poisson");
        require(m.bodyBytes() >= 40 && m.bodyBytes() <= 65_536, "messages.bodyBytes", m.bodyBytes(), "40 to 65536");
        require(m.wordShare() >= 0 && m.wordShare() <= 1, "messages.wordShare", m.wordShare(), "0 to 1");
        require(m.wordShare() == 0 || !m.words().isEmpty(), "messages.words", m.words(), "at least one word when wordShare > 0");
        for (String w : m.words()) {
            require(!w.isBlank() && w.indexOf('<') < 0 && w.indexOf('&') < 0 && w.indexOf('~') < 0,
                    "messages.words", w, "words without '<', '&' or '~'");
        }
        Scenario.Levels l = s.levels();
        for (Double rate : l.ratesPerSec()) {
            require(rate > 0 && rate <= 1_000_000, "levels.ratesPerSec", rate, "rates above 0 and up to 1000000");
        }
        require(l.durationS() >= 1 && l.durationS() <= 86_400, "levels.durationS", l.durationS(), "1 to 86400");
        require(l.warmupS() >= 0 && l.warmupS() <= 3600, "levels.warmupS", l.warmupS(), "0 to 3600");
        require(l.p99ThresholdMs() > 0, "levels.p99ThresholdMs", l.p99ThresholdMs(), "above 0");
        require(s.soak().ratePerSec() >= 0 && s.soak().ratePerSec() <= 1_000_000, "soak.ratePerSec", s.soak().ratePerSec(), "0 to 1000000");
        require(s.soak().durationS() >= 0 && s.soak().durationS() <= 7 * 86_400, "soak.durationS", s.soak().durationS(), "0 to 604800");
        require(s.soak().durationS() == 0 || s.soak().ratePerSec() > 0, "soak.ratePerSec", s.soak().ratePerSec(), "above 0 when soak.durationS > 0");
        require(s.rampDown().drainMs() >= 0 && s.rampDown().drainMs() <= 600_000, "rampDown.drainMs", s.rampDown().drainMs(), "0 to 600000");
        require(s.rampDown().leavePerSec() >= 1, "rampDown.leavePerSec", s.rampDown().leavePerSec(), "1 or more");
        require(s.run().deadlineS() >= 5 && s.run().deadlineS() <= 8 * 86_400, "run.deadlineS", s.run().deadlineS(), "5 to 691200");
        Scenario.Abuse ab = s.abuse();
        require(ab.attackers() >= 0 && ab.attackers() <= 10_000, "abuse.attackers", ab.attackers(), "0 (off) to 10000");
        require(ab.ratePerSec() > 0 && ab.ratePerSec() <= 1_000_000, "abuse.ratePerSec", ab.ratePerSec(), "above 0 and up to 1000000");
        require(ab.normalRatePerSec() > 0 && ab.normalRatePerSec() <= 1_000_000, "abuse.normalRatePerSec", ab.normalRatePerSec(), "above 0 and up to 1000000");
        require(ab.windowS() >= 1 && ab.windowS() <= 3600, "abuse.windowS", ab.windowS(), "1 to 3600");
        require(!ab.kinds().isEmpty() && AbuseAttack.KINDS.containsAll(ab.kinds()), "abuse.kinds", ab.kinds(),
                "a non-empty list of " + String.join(", ", AbuseAttack.KINDS));
        validateClients(s);
        require(s.run().progressIntervalS() >= 1 && s.run().progressIntervalS() <= 3600, "run.progressIntervalS", s.run().progressIntervalS(), "1 to 3600");
    }

    private static void validateClients(Scenario s) {
        Scenario.Clients c = s.clients();
        require(oneOf(c.streamManagement(), "off", "on", "resume"), "clients.streamManagement", c.streamManagement(),
                "off, on or resume");
        require(c.streamManagementShare() >= 0 && c.streamManagementShare() <= 1, "clients.streamManagementShare",
                c.streamManagementShare(), "0 to 1");
        require(c.resumeCuts() >= 0 && c.resumeCuts() <= 100_000, "clients.resumeCuts", c.resumeCuts(), "0 to 100000");
        require(c.resumeCuts() == 0 || "resume".equals(c.streamManagement()), "clients.resumeCuts", c.resumeCuts(),
                "0 unless clients.streamManagement is resume");
        int levels = s.levels().ratesPerSec().size();
        require(c.resumeCuts() == 0 || (c.resumeLevel() >= 1 && c.resumeLevel() <= levels), "clients.resumeLevel",
                c.resumeLevel(), "a level of levels.ratesPerSec, 1 to " + levels);
        require(c.resumeAfterS() >= 0 && (c.resumeCuts() == 0 || c.resumeAfterS() < s.levels().durationS()),
                "clients.resumeAfterS", c.resumeAfterS(), "0 to levels.durationS - 1 (" + (s.levels().durationS() - 1) + ")");
        require(c.resumeReconnectMs() >= 0 && c.resumeReconnectMs() <= 60_000, "clients.resumeReconnectMs",
                c.resumeReconnectMs(), "0 to 60000");
        require(c.csiShare() >= 0 && c.csiShare() <= 1, "clients.csiShare", c.csiShare(), "0 to 1");
        require(c.csiInactiveS() >= 1 && c.csiInactiveS() <= 86_400, "clients.csiInactiveS", c.csiInactiveS(), "1 to 86400");
        require(c.csiActiveS() >= 1 && c.csiActiveS() <= 86_400, "clients.csiActiveS", c.csiActiveS(), "1 to 86400");
        require(c.websocketShare() >= 0 && c.websocketShare() <= 1, "clients.websocketShare", c.websocketShare(), "0 to 1");
        require(c.websocketPort() >= 0 && c.websocketPort() <= 65535, "clients.websocketPort", c.websocketPort(),
                "0 (server.port) to 65535");
        require(c.websocketPath() != null && c.websocketPath().startsWith("/") && c.websocketPath().indexOf(' ') < 0
                && c.websocketPath().indexOf('\r') < 0 && c.websocketPath().indexOf('\n') < 0, "clients.websocketPath",
                c.websocketPath(), "an HTTP path starting with '/', e.g. /ws/ (Openfire) or /xmpp-websocket (Prosody)");
    }

    private static boolean oneOf(String v, String... allowed) {
        for (String a : allowed) {
            if (a.equals(v)) {
                return true;
            }
        }
        return false;
    }

    private static boolean validShard(Scenario.Accounts a) {
        if (a.shard() == null || !a.shard().matches("[0-9]{1,2}/[0-9]{1,2}")) {
            return false;
        }
        int n = a.shardCount();
        return n >= 1 && n <= 64 && a.shardIndex() < n;
    }

    private static boolean simpleName(String v) {
        if (v == null || v.isEmpty() || v.length() > 64) {
            return false;
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    private static void require(boolean ok, String key, Object value, String allowed) {
        if (!ok) {
            throw new ScenarioException("scenario key '" + key + "' must be " + allowed + ", was " + value);
        }
    }
}

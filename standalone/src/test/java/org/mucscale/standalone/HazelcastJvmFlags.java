package org.mucscale.standalone;

import java.util.List;

/** The JVM options Hazelcast 5.5 asks for on Java 17 (without them it warns and uses slower fallbacks). */
final class HazelcastJvmFlags {
    private HazelcastJvmFlags() {
    }

    static final List<String> FLAGS = List.of(
            "--add-modules", "java.se",
            "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.management/sun.management=ALL-UNNAMED",
            "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED");
}

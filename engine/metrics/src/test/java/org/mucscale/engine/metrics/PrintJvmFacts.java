package org.mucscale.engine.metrics;

/** Prints this JVM's dashboard {@code jvm} object (for JvmFactsTest's child JVMs); argument: occupants. */
public final class PrintJvmFacts {
    private PrintJvmFacts() {
    }

    public static void main(String[] args) {
        StringBuilder sb = new StringBuilder();
        JvmFacts.json(sb, args.length > 0 ? Double.parseDouble(args[0]) : Double.NaN);
        System.out.println(sb);
    }
}

package org.mucscale.engine.metrics.jvm;

/** A JVM for the --pid test: says "ready" and waits until its stdin closes. */
public final class WaitForStdin {
    private WaitForStdin() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait
        }
    }
}

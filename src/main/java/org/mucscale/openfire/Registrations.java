package org.mucscale.openfire;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Everything the plugin registers with Openfire (listeners, interceptors, components, threads), as a stack of
 * {@link AutoCloseable}s: {@link #closeAll} undoes them in reverse order, each in its own try, so one failing
 * release never keeps the rest registered, and a half-finished initialization is undone exactly as far as it got.
 *
 * <p>Concurrency: used by one thread at a time (Openfire's plugin monitor thread calls initialize and destroy);
 * {@code synchronized} only guards against a destroy racing a late initialize.
 */
public final class Registrations {

    private final Deque<Named> stack = new ArrayDeque<>();
    private final BiConsumer<String, Throwable> onFailure;

    /** @param onFailure told about each release that threw (what, exception); the rest are still released. */
    public Registrations(BiConsumer<String, Throwable> onFailure) {
        this.onFailure = onFailure;
    }

    /** Remembers a release action; returns {@code resource} for chaining. */
    public synchronized <T extends AutoCloseable> T push(String what, T resource) {
        stack.push(new Named(what, resource));
        return resource;
    }

    /** Remembers a release action that is not itself a resource. */
    public synchronized void onClose(String what, AutoCloseable release) {
        stack.push(new Named(what, release));
    }

    public synchronized int size() {
        return stack.size();
    }

    /**
     * Releases everything in reverse registration order. Returns what failed to release (empty when all went well).
     * Safe to call twice; the second call does nothing.
     */
    public synchronized List<String> closeAll() {
        List<String> failed = new ArrayList<>();
        while (!stack.isEmpty()) {
            Named n = stack.pop();
            try {
                n.resource.close();
            } catch (Throwable t) {
                failed.add(n.what);
                try {
                    onFailure.accept(n.what, t);
                } catch (RuntimeException ignored) {
                    // a failing reporter must not stop the remaining releases
                }
                if (t instanceof VirtualMachineError vme) {
                    throw vme;
                }
            }
        }
        return failed;
    }

    private record Named(String what, AutoCloseable resource) {
    }
}

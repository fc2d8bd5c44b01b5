package org.mucscale.openfire;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandleProxies;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.xmpp.packet.Packet;

/**
 * The classes of {@code org.mucscale.openfire.rendered}, defined in a class loader of their own whose parent is
 * Openfire's (the loader of Tinder and dom4j), and handles made from them.
 *
 * <p>Why a loader of their own: Openfire's stream manager keeps a copy of every stanza it counts until the client
 * acknowledges it, and a detached session (waiting for resumption) keeps them for minutes. Were those copies of a
 * class from the plugin's loader, every such session would keep the whole plugin loaded after an unload or upgrade.
 * Defined here, they keep only this loader (three small classes) alive, and the copies refer to nothing but strings.
 * The plugin never names these classes in its own code (that would load a second copy through the plugin's loader):
 * it makes handles through the constructors found here and aims them through {@link #aim}.
 *
 * <p>Concurrency: immutable after construction; a handle belongs to the one thread that made it.
 */
final class RenderedPackets {
    private static final String PACKAGE = "org.mucscale.openfire.rendered.";
    private static final List<String> CLASSES = List.of("RenderedText", "RenderedMessage", "RenderedPresence");
    private static final MethodType AIM = MethodType.methodType(void.class, String.class, String.class, String.class);

    private final MethodHandle newMessageHandle;
    private final MethodHandle newPresenceHandle;
    private final MethodHandle aimMessage;
    private final MethodHandle aimPresence;
    private final MethodHandle builtCount;
    private final Class<?> messageClass;
    private final Class<?> presenceClass;

    private RenderedPackets(ClassLoader loader) throws ReflectiveOperationException {
        Class<?> text = Class.forName(PACKAGE + "RenderedText", true, loader);
        messageClass = Class.forName(PACKAGE + "RenderedMessage", true, loader);
        presenceClass = Class.forName(PACKAGE + "RenderedPresence", true, loader);
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        MethodType make = MethodType.methodType(void.class);
        newMessageHandle = lookup.findConstructor(messageClass, make).asType(MethodType.methodType(Packet.class));
        newPresenceHandle = lookup.findConstructor(presenceClass, make).asType(MethodType.methodType(Packet.class));
        aimMessage = lookup.findVirtual(messageClass, "aim", AIM)
                .asType(MethodType.methodType(void.class, Packet.class, String.class, String.class, String.class));
        aimPresence = lookup.findVirtual(presenceClass, "aim", AIM)
                .asType(MethodType.methodType(void.class, Packet.class, String.class, String.class, String.class));
        builtCount = lookup.findStatic(text, "builtCount", MethodType.methodType(long.class));
    }

    /**
     * Defines the classes in a new loader below {@code openfire} (the loader of {@code org.xmpp.packet.Packet}),
     * reading their bytes from {@code source} (the plugin's own jar).
     */
    static RenderedPackets define(ClassLoader openfire, ClassLoader source) {
        try {
            return new RenderedPackets(loaderFor(openfire, source));
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("MUC Scale could not define its rendered packet classes: " + e, e);
        }
    }

    /** A new handle for messages (one per owner thread). */
    Packet newMessageHandle() {
        return make(newMessageHandle);
    }

    /** A new handle for presences (one per owner thread). */
    Packet newPresenceHandle() {
        return make(newPresenceHandle);
    }

    /** Points a handle made here at one recipient's copy. */
    void aim(Packet handle, String prefix, String escapedTo, String suffix) {
        try {
            if (handle.getClass() == messageClass) {
                aimMessage.invokeExact(handle, prefix, escapedTo, suffix);
            } else {
                aimPresence.invokeExact(handle, prefix, escapedTo, suffix);
            }
        } catch (Throwable e) {
            throw new IllegalStateException("aiming a rendered packet handle failed", e);
        }
    }

    /** Kept copies parsed so far because Openfire looked at them (resumption, re-routing, another plugin). */
    long builtCount() {
        try {
            return (long) builtCount.invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The loader of the rendered classes: their bytes from {@code source}, everything else from {@code parent}.
     *
     * <p>It must be an instance of a JDK class: a loader of a class of ours would be defined by the plugin's loader
     * and pin it through every kept copy. So the three class files are written once to a folder named by their
     * content hash under {@code java.io.tmpdir} (the same bytes after a reload reuse it) and read by a plain
     * {@link URLClassLoader} that sees only that folder.
     */
    static ClassLoader loaderFor(ClassLoader parent, ClassLoader source) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            Map<String, byte[]> files = new LinkedHashMap<>();
            for (String simple : CLASSES) {
                String path = (PACKAGE + simple).replace('.', '/') + ".class";
                try (InputStream in = source.getResourceAsStream(path)) {
                    if (in == null) {
                        throw new IllegalStateException("no " + path + " in the plugin");
                    }
                    byte[] b = in.readAllBytes();
                    sha.update(b);
                    files.put(path, b);
                }
            }
            Path dir = Path.of(System.getProperty("java.io.tmpdir"),
                    "mucscale-rendered-" + HexFormat.of().formatHex(sha.digest(), 0, 8));
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                Path target = dir.resolve(f.getKey());
                if (!Files.isRegularFile(target) || !Arrays.equals(Files.readAllBytes(target), f.getValue())) {
                    Files.createDirectories(target.getParent());
                    Path partial = Files.createTempFile(target.getParent(), "class", ".partial");
                    Files.write(partial, f.getValue());
                    Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                }
            }
            return newLoaderWithoutOurFrames(new URL[] {dir.toUri().toURL()}, parent);
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("MUC Scale could not write its rendered packet classes: " + e, e);
        }
    }

    /**
     * A {@link URLClassLoader} made with none of the plugin's classes on the stack. On Java 17 a URLClassLoader keeps
     * {@code AccessController.getContext()} of its creation, whose protection domains hold the loaders of every
     * class on the stack: made from plugin code, it would keep the plugin's loader (RenderedPacketsTest showed it).
     * So it is made on a common-pool worker (the JDK makes those with a context of its own) by a JDK proxy calling
     * its constructor through a method handle: only JDK frames.
     */
    private static ClassLoader newLoaderWithoutOurFrames(URL[] urls, ClassLoader parent) {
        try {
            MethodHandle constructor = MethodHandles.publicLookup().findConstructor(URLClassLoader.class,
                    MethodType.methodType(void.class, String.class, URL[].class, ClassLoader.class));
            MethodHandle bound = MethodHandles.insertArguments(constructor, 0, "mucscale-rendered", urls, parent)
                    .asType(MethodType.methodType(Object.class));
            @SuppressWarnings("unchecked")
            Callable<Object> make = MethodHandleProxies.asInterfaceInstance(Callable.class, bound);
            // submitted to the pool itself: CompletableFuture would run it on a new thread of ours when the common
            // pool has one worker (two cores), and a thread inherits its creator's context
            return (ClassLoader) ForkJoinPool.commonPool().submit(ForkJoinTask.adapt(make)).get(30, TimeUnit.SECONDS);
        } catch (ReflectiveOperationException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException("MUC Scale could not make the loader of its rendered packets: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while making the loader of the rendered packets", e);
        }
    }

    private static Packet make(MethodHandle constructor) {
        try {
            return (Packet) constructor.invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException("making a rendered packet handle failed", e);
        }
    }

}

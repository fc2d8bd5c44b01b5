package org.mucscale.openfire;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
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
    private static final MethodType AIM = MethodType.methodType(void.class, String.class, String.class, String.class);

    private final MethodHandle newMessageHandle;
    private final MethodHandle newPresenceHandle;
    private final MethodHandle aimMessage;
    private final MethodHandle aimPresence;
    private final MethodHandle messageBuilt;
    private final Class<?> messageClass;
    private final Class<?> presenceClass;

    private RenderedPackets(ClassLoader loader) throws ReflectiveOperationException {
        Class.forName(PACKAGE + "RenderedText", true, loader);
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
        messageBuilt = lookup.findVirtual(messageClass, "isBuilt", MethodType.methodType(boolean.class))
                .asType(MethodType.methodType(boolean.class, Packet.class));
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

    /** Whether {@code packet} is one of the rendered copies or handles made here. */
    boolean isRendered(Packet packet) {
        return packet.getClass() == messageClass || packet.getClass() == presenceClass;
    }

    /** Whether a rendered message has been parsed into a real element (tests). */
    boolean isBuilt(Packet message) {
        try {
            return (boolean) messageBuilt.invokeExact(message);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** The loader of the rendered classes: their bytes from {@code source}, everything else from {@code parent}. */
    static ClassLoader loaderFor(ClassLoader parent, ClassLoader source) {
        return new Loader(parent, source);
    }

    private static Packet make(MethodHandle constructor) {
        try {
            return (Packet) constructor.invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException("making a rendered packet handle failed", e);
        }
    }

    /** Defines the rendered package's classes from the plugin jar's bytes; everything else comes from Openfire. */
    private static final class Loader extends ClassLoader {
        static {
            registerAsParallelCapable();
        }

        private final ClassLoader source;

        Loader(ClassLoader parent, ClassLoader source) {
            super("mucscale-rendered", parent);
            this.source = source;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(PACKAGE)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            if (!name.startsWith(PACKAGE)) {
                throw new ClassNotFoundException(name + " (only the rendered packet classes are defined here)");
            }
            String path = name.replace('.', '/') + ".class";
            try (InputStream in = source.getResourceAsStream(path)) {
                if (in == null) {
                    throw new ClassNotFoundException(name + " (no " + path + " in the plugin)");
                }
                byte[] bytes = in.readAllBytes();
                return defineClass(name, bytes, 0, bytes.length);
            } catch (IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }
    }
}

package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.xmpp.packet.JID;

/**
 * Every member declared in the openfire-api module (compile-only stand-ins for Openfire 5.1.1 and Tinder 2.1.0) must
 * exist in the real classes with the same kind (class, interface, enum), static-ness, parameter types, return type
 * and checked exceptions. Runs when {@code -Dopenfire.home} names an Openfire installation (its lib/ is loaded in an
 * isolated class loader); skipped otherwise, and in {@code -Dopenfire.real} builds (no declarations to check).
 */
class OpenfireApiDeclarationsTest {

    @Test
    void declarations_matchRealOpenfireAndTinder() throws Exception {
        String home = System.getProperty("openfire.home", "");
        assumeTrue(!home.isBlank(), "no -Dopenfire.home given: declaration check skipped");
        Path declarations = Path.of(JID.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assumeTrue(declarations.toString().contains("openfire-api"), "compiled against the real artifacts");

        List<URL> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of(home, "lib"))) {
            for (Path p : files.filter(p -> p.toString().endsWith(".jar")).toList()) {
                jars.add(p.toUri().toURL());
            }
        }
        List<String> problems = new ArrayList<>();
        int checked = 0;
        try (URLClassLoader real = new URLClassLoader(jars.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            for (String name : classNames(declarations)) {
                Class<?> declared = Class.forName(name, false, getClass().getClassLoader());
                Class<?> actual;
                try {
                    actual = Class.forName(name, false, real);
                } catch (ClassNotFoundException e) {
                    problems.add(name + ": no such class in Openfire");
                    continue;
                }
                if (declared.isInterface() != actual.isInterface() || declared.isEnum() != actual.isEnum()) {
                    problems.add(name + ": kind differs");
                }
                for (Method m : declared.getDeclaredMethods()) {
                    if (m.isSynthetic() || !visible(m)) {
                        continue;
                    }
                    checked++;
                    Method match = findMethod(actual, m, real);
                    if (match == null) {
                        problems.add(name + "." + m.getName() + Arrays.toString(m.getParameterTypes()) + ": missing");
                    } else {
                        compare(name + "." + m.getName(), m, match, problems);
                        if (!m.getReturnType().getName().equals(match.getReturnType().getName())) {
                            problems.add(name + "." + m.getName() + ": returns " + match.getReturnType().getName());
                        }
                    }
                }
                for (Constructor<?> c : declared.getDeclaredConstructors()) {
                    if (!visible(c) || declared.isEnum()) {
                        continue;
                    }
                    checked++;
                    Constructor<?> match = findConstructor(actual, c, real);
                    if (match == null) {
                        problems.add(name + "(" + Arrays.toString(c.getParameterTypes()) + "): constructor missing");
                    } else {
                        compare(name + ".<init>", c, match, problems);
                    }
                }
                if (declared.isEnum()) {
                    for (Object constant : declared.getEnumConstants()) {
                        String constantName = ((Enum<?>) constant).name();
                        boolean found = Arrays.stream(actual.getEnumConstants())
                                .anyMatch(a -> ((Enum<?>) a).name().equals(constantName));
                        if (!found) {
                            problems.add(name + "." + constantName + ": no such constant");
                        }
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(checked).isGreaterThan(50);
    }

    /**
     * The private fields the adapter finds by name at start (each with a logged fallback when missing: Openfire would
     * then write its own {@code <r/>} requests, raw writes go one by one, or CSI's last-push time is not renewed) are
     * there in this Openfire with the type the adapter asks for, so a mismatch shows here rather than as one INFO line
     * in a running server.
     */
    @Test
    void fieldsFoundByName_existInRealOpenfire() throws Exception {
        String home = System.getProperty("openfire.home", "");
        assumeTrue(!home.isBlank(), "no -Dopenfire.home given: field check skipped");
        List<URL> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of(home, "lib"))) {
            for (Path p : files.filter(p -> p.toString().endsWith(".jar")).toList()) {
                jars.add(p.toUri().toURL());
            }
        }
        String[][] fields = {
            {"org.jivesoftware.openfire.csi.CsiManager", "lastPush", "java.time.Instant"},           // CsiLastPush
            {"org.jivesoftware.openfire.streammanagement.StreamManager", "unacknowledgedServerStanzas",
                "java.util.Deque"},                                                                   // UnackedStanzas
            {"org.jivesoftware.openfire.streammanagement.StreamManager", "clientProcessedStanzas",
                "java.util.concurrent.atomic.AtomicLong"},
            {"org.jivesoftware.openfire.streammanagement.StreamManager", "namespace", "java.lang.String"},
            {"org.jivesoftware.openfire.nio.NettyConnection", "channelHandlerContext",
                "io.netty.channel.ChannelHandlerContext"},                                            // NettyChannels
        };
        List<String> problems = new ArrayList<>();
        try (URLClassLoader real = new URLClassLoader(jars.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            for (String[] f : fields) {
                try {
                    java.lang.reflect.Field field = Class.forName(f[0], false, real).getDeclaredField(f[1]);
                    if (!field.getType().getName().equals(f[2]) || Modifier.isStatic(field.getModifiers())) {
                        problems.add(f[0] + "." + f[1] + ": " + field);
                    }
                } catch (ClassNotFoundException | NoSuchFieldException e) {
                    problems.add(f[0] + "." + f[1] + ": " + e);
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    static boolean visible(Executable e) {
        return Modifier.isPublic(e.getModifiers()) || Modifier.isProtected(e.getModifiers());
    }

    static Method findMethod(Class<?> actual, Method m, ClassLoader real) throws ClassNotFoundException {
        Class<?>[] params = translate(m.getParameterTypes(), real);
        for (Class<?> c = actual; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredMethod(m.getName(), params);
            } catch (NoSuchMethodException e) {
                // look further up
            }
        }
        try {
            return actual.getMethod(m.getName(), params);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    static Constructor<?> findConstructor(Class<?> actual, Constructor<?> c, ClassLoader real)
            throws ClassNotFoundException {
        try {
            return actual.getDeclaredConstructor(translate(c.getParameterTypes(), real));
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    static Class<?>[] translate(Class<?>[] types, ClassLoader real) throws ClassNotFoundException {
        Class<?>[] out = new Class<?>[types.length];
        for (int i = 0; i < types.length; i++) {
            out[i] = types[i].isPrimitive() ? types[i] : Class.forName(types[i].getName(), false, real);
        }
        return out;
    }

    static void compare(String what, Executable declared, Executable actual, List<String> problems) {
        if (Modifier.isStatic(declared.getModifiers()) != Modifier.isStatic(actual.getModifiers())) {
            problems.add(what + ": static differs");
        }
        if (Modifier.isPublic(declared.getModifiers()) && !Modifier.isPublic(actual.getModifiers())) {
            problems.add(what + ": not public in Openfire");
        }
        List<String> declaredChecked = checked(declared.getExceptionTypes());
        List<String> actualChecked = checked(actual.getExceptionTypes());
        if (!declaredChecked.equals(actualChecked)) {
            problems.add(what + ": throws " + actualChecked + " in Openfire, declared " + declaredChecked);
        }
    }

    static List<String> checked(Class<?>[] exceptions) {
        return Arrays.stream(exceptions)
                .filter(e -> !RuntimeException.class.isAssignableFrom(e) && !Error.class.isAssignableFrom(e)
                        && !e.getName().equals("java.lang.RuntimeException") && !isUnchecked(e))
                .map(Class::getName).sorted().toList();
    }

    static boolean isUnchecked(Class<?> e) {
        for (Class<?> c = e; c != null; c = c.getSuperclass()) {
            if (c.getName().equals("java.lang.RuntimeException") || c.getName().equals("java.lang.Error")) {
                return true;
            }
        }
        return false;
    }

    static List<String> classNames(Path root) throws IOException {
        List<String> out = new ArrayList<>();
        if (Files.isDirectory(root)) {
            try (Stream<Path> s = Files.walk(root)) {
                for (Path p : s.filter(p -> p.toString().endsWith(".class")).toList()) {
                    String rel = root.relativize(p).toString();
                    out.add(rel.substring(0, rel.length() - ".class".length()).replace('/', '.'));
                }
            }
        } else {
            try (java.util.jar.JarFile jar = new java.util.jar.JarFile(root.toFile())) {
                jar.stream().map(java.util.jar.JarEntry::getName).filter(n -> n.endsWith(".class"))
                        .forEach(n -> out.add(n.substring(0, n.length() - ".class".length()).replace('/', '.')));
            }
        }
        out.removeIf(n -> n.endsWith("package-info") || n.equals("module-info"));
        return out;
    }
}

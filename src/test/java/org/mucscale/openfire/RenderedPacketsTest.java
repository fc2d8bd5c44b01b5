package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The rendered packets that Openfire's stream manager keeps for stream-managed sessions, against the real Tinder 2.1.0
 * (loaded apart from the compile-only declarations, as Openfire's loader would hold it): every public method of the
 * real packet classes builds the copy first, a copy is built only when looked at and then equals the parsed stanza,
 * a handle never builds, and the classes come from a loader of their own that refers to nothing of the plugin.
 */
class RenderedPacketsTest {
    private static final String PKG = "org.mucscale.openfire.rendered.";
    private static URLClassLoader tinder;
    private static ClassLoader rendered;

    @BeforeAll
    static void loadRealTinder() throws Exception {
        Path lib = Path.of(System.getProperty("mucscale.tinder.lib", "target/tinder-lib"));
        List<URL> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(lib)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".jar")).toList()) {
                jars.add(p.toUri().toURL());
            }
        }
        tinder = new URLClassLoader(jars.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        rendered = RenderedPackets.loaderFor(tinder, RenderedPacketsTest.class.getClassLoader());
    }

    @AfterAll
    static void close() throws Exception {
        tinder.close();
    }

    private ClassLoader contextBefore;

    /** dom4j finds its factory through the context class loader: Openfire's own, as inside Openfire. */
    @BeforeEach
    void openfireContext() {
        contextBefore = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(tinder);
    }

    @AfterEach
    void restoreContext() {
        Thread.currentThread().setContextClassLoader(contextBefore);
    }

    @Test
    void everyPublicMethodOfTheRealPacketClasses_isOverriddenToBuildFirst() throws Exception {
        for (String[] pair : new String[][] {{"RenderedMessage", "org.xmpp.packet.Message"},
                {"RenderedPresence", "org.xmpp.packet.Presence"}}) {
            Class<?> ours = rendered.loadClass(PKG + pair[0]);
            Class<?> real = tinder.loadClass(pair[1]);
            assertThat(ours.getSuperclass()).isSameAs(real);
            List<String> missing = new ArrayList<>();
            for (Class<?> c = real; c != Object.class; c = c.getSuperclass()) {
                for (Method m : c.getDeclaredMethods()) {
                    int mod = m.getModifiers();
                    if (!Modifier.isPublic(mod) || Modifier.isStatic(mod) || m.isSynthetic()) {
                        continue;
                    }
                    assertThat(Modifier.isFinal(mod)).as(c.getName() + "." + m.getName() + " is final").isFalse();
                    try {
                        Method o = ours.getDeclaredMethod(m.getName(), m.getParameterTypes());
                        assertThat(o.isSynthetic()).isFalse();
                    } catch (NoSuchMethodException e) {
                        missing.add(c.getSimpleName() + "." + m.getName());
                    }
                }
            }
            assertThat(missing).as(pair[0] + " must override (and build in) every public packet method").isEmpty();
        }
    }

    @Test
    void copy_isBuiltOnlyWhenLookedAt_thenEqualsTheParsedStanza() throws Exception {
        RenderedStanza stanza = groupchat("hello <world> & \"all\"");
        Jid to = Jid.parse("bob@example.org/phone");
        Object handle = handle("RenderedMessage", stanza, to);

        // what sentStanza does with the packet it is given: a copy, and the element's name for a trace line
        Object copy = call(handle, "createCopy");
        Object name = call(call(handle, "getElement"), "getName");
        assertThat(name).isEqualTo("message");
        assertThat(built(handle)).as("a handle never builds").isFalse();
        assertThat(built(copy)).as("a kept copy is not built until looked at").isFalse();
        assertThat(copy).isNotSameAs(handle);

        String expected = parse(stanza.forRecipient(to));
        assertThat(call(copy, "toXML")).isEqualTo(expected);
        assertThat(built(copy)).isTrue();
        assertThat(call(copy, "getBody")).isEqualTo("hello <world> & \"all\"");
        assertThat(call(copy, "getTo").toString()).isEqualTo("bob@example.org/phone");
        assertThat(call(copy, "getFrom").toString()).isEqualTo("room@muc.example.org/alice");
    }

    @Test
    void redeliveryOnClose_addsItsDelayStamp_toTheBuiltCopy() throws Exception {
        RenderedStanza stanza = groupchat("unacked");
        Object copy = call(handle("RenderedMessage", stanza, Jid.parse("bob@example.org/r")), "createCopy");
        // StreamManager.onClose: look for a delay, add one, route the packet
        Method getExtension = copy.getClass().getMethod("getExtension", String.class, String.class);
        assertThat(getExtension.invoke(copy, "delay", "urn:xmpp:delay")).isNull();
        Object delay = copy.getClass().getMethod("addChildElement", String.class, String.class)
                .invoke(copy, "delay", "urn:xmpp:delay");
        delay.getClass().getMethod("addAttribute", String.class, String.class).invoke(delay, "stamp", "2026-12-02T01:00:00Z");
        String xml = (String) call(copy, "toXML");
        assertThat(xml).contains("<body>unacked</body>").contains("<delay xmlns=\"urn:xmpp:delay\" stamp=\"2026-12-02T01:00:00Z\"/>");
        assertThat(getExtension.invoke(copy, "delay", "urn:xmpp:delay")).isNotNull();
    }

    @Test
    void copiesOfACopy_areIndependent_builtOrNot() throws Exception {
        RenderedStanza stanza = groupchat("twice");
        Object first = call(handle("RenderedMessage", stanza, Jid.parse("bob@example.org/r")), "createCopy");
        Object second = call(first, "createCopy");
        assertThat(built(first)).isFalse();
        assertThat(second.getClass()).isSameAs(first.getClass());
        copyAddsThread(first);
        Object third = call(first, "createCopy"); // of a built copy: a real deep copy
        assertThat(third.getClass().getName()).isEqualTo("org.xmpp.packet.Message");
        assertThat((String) call(third, "toXML")).contains("<thread>t1</thread>");
        assertThat((String) call(second, "toXML")).doesNotContain("<thread>");
    }

    @Test
    void presence_answersItsTypeAndMucItem_fromTheRenderedText() throws Exception {
        XmlElement x = XmlElement.builder("x", "http://jabber.org/protocol/muc#user")
                .child(XmlElement.builder("item", null).attribute("affiliation", "none").attribute("role", "participant").build())
                .build();
        XmlElement presence = XmlElement.builder("presence", null).attribute("from", "room@muc.example.org/alice")
                .attribute("type", "unavailable").child(x).build();
        RenderedStanza stanza = RenderedStanza.render(presence);
        Object copy = call(handle("RenderedPresence", stanza, Jid.parse("bob@example.org/r")), "createCopy");
        assertThat(call(copy, "getType").toString()).isEqualTo("unavailable");
        Object child = copy.getClass().getMethod("getChildElement", String.class, String.class)
                .invoke(copy, "x", "http://jabber.org/protocol/muc#user");
        assertThat(child).isNotNull();
        assertThat(call(copy, "toXML")).isEqualTo(parse(stanza.forRecipient(Jid.parse("bob@example.org/r"))));
    }

    @Test
    void renderedClasses_liveInALoaderOfTheirOwn_andHoldNothingOfThePlugin() throws Exception {
        for (String name : List.of("RenderedMessage", "RenderedPresence", "RenderedText")) {
            Class<?> c = rendered.loadClass(PKG + name);
            assertThat(c.getClassLoader()).isSameAs(rendered);
            assertThat(c.getClassLoader().getParent()).isSameAs(tinder);
            // a loader of a class of ours would be defined by the plugin's loader and pin it through every copy
            assertThat(c.getClassLoader().getClass().getClassLoader()).as("the rendered loader is a JDK class").isNull();
            for (Field f : c.getDeclaredFields()) {
                Class<?> t = f.getType();
                boolean pluginType = t.getClassLoader() == RenderedPacketsTest.class.getClassLoader();
                assertThat(pluginType).as(name + "." + f.getName() + " is of a plugin class").isFalse();
            }
        }
        // nothing of the plugin resolves through it
        try {
            rendered.loadClass("org.mucscale.openfire.OpenfireDelivery");
            throw new AssertionError("the rendered loader must not see plugin classes");
        } catch (ClassNotFoundException expected) {
            // as wanted
        }
    }

    /**
     * The invariant the separate loader exists for: a copy Openfire keeps (a detached session's unacknowledged stanza)
     * does not keep the plugin's class loader alive. A stand-in plugin loader makes the rendered loader, a copy is
     * kept, everything else of the "plugin" is dropped, and the plugin loader must be collectable.
     */
    @Test
    void aKeptCopy_doesNotPinThePluginsClassLoader() throws Exception {
        URL classes = RenderedPackets.class.getProtectionDomain().getCodeSource().getLocation();
        URLClassLoader plugin = new URLClassLoader("stand-in-plugin", new URL[] {classes}, tinder) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.startsWith("org.mucscale.")) {
                    return super.loadClass(name, resolve);
                }
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    return c != null ? c : findClass(name); // plugin-first for our own classes, as a plugin's jar
                }
            }
        };
        Object kept = keepACopyMadeBy(plugin);
        java.lang.ref.WeakReference<ClassLoader> pluginRef = new java.lang.ref.WeakReference<>(plugin);
        plugin.close();
        plugin = null;
        for (int i = 0; i < 50 && pluginRef.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(call(kept, "toXML")).asString().contains("<body>kept</body>");
        assertThat(pluginRef.get()).as("the plugin's loader is collectable while a copy is kept").isNull();
    }

    private static Object keepACopyMadeBy(ClassLoader plugin) throws Exception {
        Class<?> packets = plugin.loadClass("org.mucscale.openfire.RenderedPackets");
        assertThat(packets.getClassLoader()).isSameAs(plugin);
        Method loaderFor = packets.getDeclaredMethod("loaderFor", ClassLoader.class, ClassLoader.class);
        loaderFor.setAccessible(true);
        ClassLoader own = (ClassLoader) loaderFor.invoke(null, tinder, plugin);
        Class<?> c = own.loadClass(PKG + "RenderedMessage");
        Object h = c.getConstructor().newInstance();
        RenderedStanza stanza = groupchat("kept");
        c.getMethod("aim", String.class, String.class, String.class).invoke(h, stanza.prefix(), "bob@example.org/r",
                stanza.suffix());
        return call(h, "createCopy");
    }

    @Test
    void namespaced_addsJabberClient_unlessTheStanzaDeclaresOne() {
        RenderedStanza plain = groupchat("ws");
        String text = StanzaText.namespaced(plain, "bob@example.org/ws");
        assertThat(text).startsWith("<message xmlns=\"jabber:client\" to=\"bob@example.org/ws\"");
        assertThat(text.replace(StanzaText.CLIENT_NAMESPACE, "")).isEqualTo(plain.forRecipient(Jid.parse("bob@example.org/ws")));

        XmlElement declared = XmlElement.builder("message", "jabber:client").attribute("type", "groupchat")
                .child(XmlElement.builder("body", "jabber:client").text("x").build()).build();
        RenderedStanza withNs = RenderedStanza.render(declared);
        assertThat(StanzaText.namespaced(withNs, "a@b/c")).isEqualTo(withNs.forRecipient(Jid.parse("a@b/c")));
    }

    private static void copyAddsThread(Object copy) throws Exception {
        copy.getClass().getMethod("setThread", String.class).invoke(copy, "t1");
    }

    private static RenderedStanza groupchat(String body) {
        XmlElement message = XmlElement.builder("message", null).attribute("from", "room@muc.example.org/alice")
                .attribute("type", "groupchat").attribute("id", "m-1")
                .child(XmlElement.builder("body", null).text(body).build()).build();
        return RenderedStanza.render(message);
    }

    private static Object handle(String cls, RenderedStanza stanza, Jid to) throws Exception {
        Class<?> c = rendered.loadClass(PKG + cls);
        Object h = c.getConstructor().newInstance();
        c.getMethod("aim", String.class, String.class, String.class)
                .invoke(h, stanza.prefix(), org.mucscale.engine.stanza.Xml.escapeAttribute(to.toString()), stanza.suffix());
        return h;
    }

    private static boolean built(Object packet) throws Exception {
        return (boolean) packet.getClass().getMethod("isBuilt").invoke(packet);
    }

    private static Object call(Object target, String method) throws Exception {
        Method m = target.getClass().getMethod(method);
        m.setAccessible(true);
        return m.invoke(target);
    }

    /** The stanza as real dom4j parses and writes it: what a Tinder packet of the same text would send. */
    private static String parse(String xml) throws Exception {
        Class<?> helper = tinder.loadClass("org.dom4j.DocumentHelper");
        Object doc = helper.getMethod("parseText", String.class).invoke(null, xml);
        Object root = doc.getClass().getMethod("getRootElement").invoke(doc);
        return (String) root.getClass().getMethod("asXML").invoke(root);
    }
}

package org.mucscale.engine.store;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * mysql-connector-j's per-connection {@code allowLoadLocalInfile} property, reached by reflection (inside Openfire the
 * driver is the server's, not ours): {@link MySqlBulkLoad} turns it on around its own LOAD DATA statement only, so a
 * database server asking for a local file on any other statement is refused by the driver.
 *
 * <p>Threads: stateless; each call works on the connection it is given (one writer lane's).
 */
final class LocalInfileSwitch {
    private final Class<?> jdbcConnection;
    private final Method getPropertySet;
    private final Method getBooleanProperty;
    private final Object allowLoadLocalInfileKey;
    private final Method getValue;
    private final Method setValue;

    private LocalInfileSwitch(Class<?> jdbcConnection, Method getPropertySet, Method getBooleanProperty,
                              Object key, Method getValue, Method setValue) {
        this.jdbcConnection = jdbcConnection;
        this.getPropertySet = getPropertySet;
        this.getBooleanProperty = getBooleanProperty;
        this.allowLoadLocalInfileKey = key;
        this.getValue = getValue;
        this.setValue = setValue;
    }

    /** The switch of the driver loaded by {@code loader}, or null when that driver has no such property. */
    static LocalInfileSwitch find(ClassLoader loader) {
        try {
            Class<?> conn = Class.forName("com.mysql.cj.jdbc.JdbcConnection", false, loader);
            Class<?> propertySet = Class.forName("com.mysql.cj.conf.PropertySet", false, loader);
            Class<?> propertyKey = Class.forName("com.mysql.cj.conf.PropertyKey", false, loader);
            Class<?> runtimeProperty = Class.forName("com.mysql.cj.conf.RuntimeProperty", false, loader);
            Object key = null;
            for (Object k : propertyKey.getEnumConstants()) {
                if (((Enum<?>) k).name().equals("allowLoadLocalInfile")) {
                    key = k;
                }
            }
            if (key == null) {
                return null;
            }
            return new LocalInfileSwitch(conn, conn.getMethod("getPropertySet"),
                    propertySet.getMethod("getBooleanProperty", propertyKey), key,
                    runtimeProperty.getMethod("getValue"), runtimeProperty.getMethod("setValue", Object.class));
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }

    /** The connection's {@code allowLoadLocalInfile} property, or null when it cannot be switched here. */
    Object property(Connection driverConnection) throws SQLException {
        Object c = driverConnection;
        if (!jdbcConnection.isInstance(c)) {
            c = driverConnection.isWrapperFor(jdbcConnection) ? driverConnection.unwrap(jdbcConnection) : null;
        }
        if (c == null) {
            return null;
        }
        try {
            return getBooleanProperty.invoke(getPropertySet.invoke(c), allowLoadLocalInfileKey);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Turns LOCAL INFILE on; returns the value to give {@link #restore}. */
    Object enable(Object property) throws SQLException {
        try {
            Object previous = getValue.invoke(property);
            setValue.invoke(property, Boolean.TRUE);
            return previous;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new SQLException("cannot allow LOCAL INFILE for the bulk load statement: " + e, e);
        }
    }

    /** Puts the value back that {@link #enable} found (off, unless the operator's URL turned it on). */
    void restore(Object property, Object previous) {
        try {
            setValue.invoke(property, previous == null ? Boolean.FALSE : previous);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // Cannot happen for a runtime-modifiable property; if it did, the connection must not stay open with
            // LOCAL INFILE on.
            throw new IllegalStateException("cannot switch LOCAL INFILE off again after the bulk load", e);
        }
    }
}

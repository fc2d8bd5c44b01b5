package org.jivesoftware.openfire.interceptor;

import java.util.List;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.interceptor.InterceptorManager} (members mucscale uses). */
public class InterceptorManager {

    public static InterceptorManager getInstance() { return null; }

    public List<PacketInterceptor> getInterceptors() { return null; }

    public List<PacketInterceptor> getUserInterceptors(String username) { return null; }

    public void addInterceptor(PacketInterceptor interceptor) { }

    public void addInterceptor(int index, PacketInterceptor interceptor) { }

    public boolean removeInterceptor(PacketInterceptor interceptor) { return false; }
}

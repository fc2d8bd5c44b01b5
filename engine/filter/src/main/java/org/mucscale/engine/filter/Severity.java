package org.mucscale.engine.filter;

/** How bad an entry is; a policy's threshold ignores entries below it. */
public enum Severity {
    /** Mild language ("crap", "damn"): masked in children's rooms, often allowed elsewhere. */
    LOW,
    /** Ordinary swearing and sexual terms. */
    MEDIUM,
    /** Slurs, threats and the worst abuse. */
    HIGH
}

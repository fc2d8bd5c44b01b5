/*
 * mucscale dashboard: fetches the JSON from the data-url of #mucscale-dashboard and redraws the charts in place.
 * Every string that comes from data (room names, collector names, causes) goes into the page through textContent,
 * never innerHTML. Actions are POSTs carrying the csrf token from the page's hidden input.
 */
(function () {
    'use strict';

    var root = document.getElementById('mucscale-dashboard');
    if (!root || typeof uPlot === 'undefined') {
        return;
    }
    var dataUrl = root.getAttribute('data-url') || 'mucscale-dashboard-data';
    var form = document.getElementById('ms-actions');
    var status = document.getElementById('ms-status');
    var range = 900;
    var timer = null;
    var state = { charts: {}, signatures: {}, renders: 0, lastData: null, errors: [] };
    window.mucscaleDashboard = state;

    var COLORS = ['#1f77b4', '#d62728', '#9467bd', '#000000', '#2ca02c', '#ff7f0e', '#8c564b', '#e377c2',
        '#7f7f7f', '#bcbd22', '#17becf', '#393b79'];

    function text(id, value) {
        var el = document.getElementById(id);
        if (el) {
            el.textContent = value;
        }
    }

    function fmt(v, unit) {
        if (v === null || v === undefined || isNaN(v)) {
            return '–';
        }
        var digits = Math.abs(v) >= 100 ? 0 : (Math.abs(v) >= 10 ? 1 : 2);
        return v.toFixed(digits) + (unit || '');
    }

    function whole(v) {
        return v === null || v === undefined || isNaN(v) ? '–' : String(Math.round(v));
    }

    function width(el) {
        return Math.max(320, (el.clientWidth || 800) - 4);
    }

    /** Builds or updates one chart; rebuilds it only when its set of series changes. */
    function draw(key, elId, seriesDefs, data, extra) {
        var el = document.getElementById(elId);
        var signature = seriesDefs.map(function (s) { return s.label; }).join('\u0000');
        var chart = state.charts[key];
        if (chart && state.signatures[key] === signature) {
            chart.setData(data);
            return;
        }
        if (chart) {
            chart.destroy();
        }
        while (el.firstChild) {
            el.removeChild(el.firstChild);
        }
        var opts = {
            width: width(el),
            height: 220,
            series: [{}].concat(seriesDefs),
            axes: [{}, { size: 60 }],
            scales: { x: { time: true } },
            legend: { live: true },
            cursor: { drag: { x: true, y: false } }
        };
        if (extra) {
            extra(opts);
        }
        state.charts[key] = new uPlot(opts, data, el);
        state.signatures[key] = signature;
    }

    function line(label, i, extra) {
        var s = { label: label, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: false };
        if (extra) {
            for (var k in extra) {
                if (Object.prototype.hasOwnProperty.call(extra, k)) {
                    s[k] = extra[k];
                }
            }
        }
        return s;
    }

    function column(d, name) {
        return d.series[name] || [];
    }

    /**
     * The latency chart's x axis is the union of sample times and GC pause times, so a pause sits exactly where it
     * happened; latency series are null at pause-only times (lines span them), the pause series only has points.
     */
    function latencyData(d) {
        var times = d.t.slice();
        var pauses = d.gcPauses || [];
        var pauseAt = {};
        pauses.forEach(function (p) {
            var t = p.t / 1000;
            pauseAt[t] = Math.max(pauseAt[t] || 0, p.ms);
            times.push(t);
        });
        times.sort(function (a, b) { return a - b; });
        var unique = [];
        times.forEach(function (t) {
            if (unique.length === 0 || unique[unique.length - 1] !== t) {
                unique.push(t);
            }
        });
        var index = {};
        d.t.forEach(function (t, i) { index[t] = i; });
        var names = ['latencyP50Ms', 'latencyP99Ms', 'latencyP999Ms', 'latencyMaxMs', 'probeP99Ms'];
        var out = [unique];
        names.forEach(function (name) {
            var src = column(d, name);
            out.push(unique.map(function (t) {
                return index[t] === undefined ? null : src[index[t]];
            }));
        });
        out.push(unique.map(function (t) {
            return pauseAt[t] === undefined ? null : pauseAt[t];
        }));
        return out;
    }

    function pauseBands(u) {
        // Draws each GC pause as a red band from the top of the plot: visible even when the pause is short.
        var d = state.lastData;
        if (!d || !d.gcPauses) {
            return;
        }
        var ctx = u.ctx;
        ctx.save();
        ctx.fillStyle = 'rgba(214, 39, 40, 0.18)';
        d.gcPauses.forEach(function (p) {
            var x0 = u.valToPos(p.t / 1000, 'x', true);
            var x1 = u.valToPos((p.t + Math.max(p.ms, 1)) / 1000, 'x', true);
            var w = Math.max(2, x1 - x0);
            if (x0 + w >= u.bbox.left && x0 <= u.bbox.left + u.bbox.width) {
                ctx.fillRect(x0, u.bbox.top, w, u.bbox.height);
            }
        });
        ctx.restore();
    }

    function render(d) {
        state.lastData = d;
        var t = d.t;

        draw('latency', 'ms-chart-latency', [
            line('p50 ms', 4),
            line('p99 ms', 0),
            line('p99.9 ms', 2),
            line('max ms', 3),
            line('probe p99 ms', 5, { dash: [4, 3] }),
            line('GC pause ms', 1, { paths: function () { return null; }, points: { show: true, size: 8, fill: '#d62728' } })
        ], latencyData(d), function (opts) {
            opts.hooks = { draw: [pauseBands] };
            opts.series[1].spanGaps = true;
            opts.series[2].spanGaps = true;
            opts.series[3].spanGaps = true;
            opts.series[4].spanGaps = true;
            opts.series[5].spanGaps = true;
        });

        draw('throughput', 'ms-chart-throughput', [
            line('messages/s', 0),
            line('deliveries/s', 4),
            line('store commits/s', 5)
        ], [t, column(d, 'messagesPerSec'), column(d, 'deliveriesPerSec'), column(d, 'storeCommitsPerSec')]);

        var queueNames = Object.keys(d.queues || {}).sort();
        var queueDefs = queueNames.map(function (q, i) { return line(q, i); });
        var queueData = [t].concat(queueNames.map(function (q) { return d.queues[q]; }));
        queueDefs.push(line('store spilled/s', 8));
        queueData.push(column(d, 'storeSpilledPerSec'));
        queueDefs.push(line('dead letters/s', 1));
        queueData.push(column(d, 'storeDeadLettersPerSec'));
        queueDefs.push(line('outbound dropped/s', 2));
        queueData.push(column(d, 'outboundDroppedPerSec'));
        queueDefs.push(line('slow recipients removed/s', 3));
        queueData.push(column(d, 'slowRecipientsRemovedPerSec'));
        draw('queues', 'ms-chart-queues', queueDefs, queueData);

        var filterNames = Object.keys(d.filterActions || {}).sort();
        var filterDefs = filterNames.map(function (f, i) { return line(f, i); });
        var filterData = [t].concat(filterNames.map(function (f) { return d.filterActions[f]; }));
        filterDefs.push(line('flood rejections/s', 1));
        filterData.push(column(d, 'floodRejectionsPerSec'));
        filterDefs.push(line('moderations/s', 2));
        filterData.push(column(d, 'moderationsPerSec'));
        draw('filter', 'ms-chart-filter', filterDefs, filterData);

        draw('jvm', 'ms-chart-jvm', [
            line('heap used MiB', 0),
            line('allocation MiB/s', 5),
            line('threads', 7),
            line('GC pause max ms', 1)
        ], [t, column(d, 'heapUsedMiB'), column(d, 'allocationMiBPerSec'), column(d, 'threads'),
            column(d, 'gcPauseMaxMs')]);

        renderCluster(d);
        renderJvm(d.jvm);

        var s = d.summary || {};
        text('ms-sum-p99', fmt(s.latencyP99Ms, ' ms'));
        text('ms-sum-p999', fmt(s.latencyP999Ms, ' ms'));
        text('ms-sum-write-p99', fmt(s.writeLatencyP99Ms, ' ms'));
        text('ms-sum-max', fmt(s.latencyMaxMs, ' ms'));
        text('ms-sum-gc', fmt(s.gcPauseMaxMs, ' ms'));
        text('ms-sum-mps', fmt(s.messagesPerSec));
        text('ms-sum-dps', fmt(s.deliveriesPerSec));
        text('ms-sum-rooms', whole(s.rooms));
        text('ms-sum-occupants', whole(s.occupants));
        text('ms-sum-admin-changes', whole(s.adminChanges));
        text('ms-sum-admin-refusals', whole(s.adminRefusals));

        table('ms-top-rooms', (d.topRooms || []).map(function (r) {
            return [r.room, String(r.messages), String(r.error)];
        }));
        table('ms-top-filter-rooms', (d.topFilterRooms || []).map(function (r) {
            return [r.room, String(r.messages), String(r.error)];
        }));
        table('ms-filter-lists', (d.filterLists || []).map(function (line) {
            return [line];
        }), 'no operator word lists (mucscale.filter.extra-lists)');
        table('ms-heap-pools', (d.heapPools || []).map(function (p) {
            return [p.pool, fmt(p.beforeBytes / 1048576), fmt(p.afterBytes / 1048576)];
        }));
        table('ms-gc-pauses', (d.gcPauses || []).slice(-20).reverse().map(function (p) {
            return [new Date(p.t).toLocaleTimeString(), String(p.ms), p.collector, p.cause];
        }));

        state.renders++;
        root.setAttribute('data-state', 'ok');
        text('ms-status', 'updated ' + new Date(d.nowMs).toLocaleTimeString() + ' · ' + t.length + ' samples');
    }

    /** The running JVM and the flag checker's verdict (the data's jvm object); text only. */
    function renderJvm(j) {
        if (!j) {
            return;
        }
        text('ms-jvm-version', j.version + (j.vendor ? ' (' + j.vendor + ')' : ''));
        text('ms-jvm-collector', j.collector);
        text('ms-jvm-heap', mib(j.heapInitBytes) + ' / ' + mib(j.heapMaxBytes));
        var check = j.check || {};
        var verdict = document.getElementById('ms-jvm-verdict');
        if (verdict) {
            verdict.textContent = check.verdict === 'clean' ? 'clean'
                : check.verdict === 'warnings' ? 'warnings' : check.verdict === 'stop' ? 'would not start' : '–';
            verdict.setAttribute('data-verdict', check.verdict || '');
        }
        var effective = Object.keys(j.effective || {}).map(function (k) { return k + '=' + j.effective[k]; });
        text('ms-jvm-options', (j.gcOptions && j.gcOptions.length ? j.gcOptions.join(' ') : '(none: JVM defaults)')
            + (effective.length ? '   · in effect: ' + effective.join(' ') : ''));
        table('ms-jvm-findings', (check.findings || []).map(function (f) {
            return [f.severity, f.option, f.problem, f.instead];
        }), 'no findings: the options are clean for JDK ' + j.feature);
    }

    function mib(bytes) {
        return bytes === null || bytes === undefined ? '–' : fmt(bytes / 1048576, ' MiB');
    }

    function bytesRate(v) {
        if (v === null || v === undefined || isNaN(v)) {
            return '–';
        }
        return v >= 1048576 ? fmt(v / 1048576, ' MiB/s') : fmt(v / 1024, ' KiB/s');
    }

    function triple(values) {
        return values.every(function (v) { return v === null || v === undefined; })
            ? '–' : values.map(function (v) { return fmt(v); }).join(' / ');
    }

    /**
     * The Cluster panel: shown only when the data says this node is clustered; otherwise hidden and its chart
     * dropped, so a single server's page looks as it always did.
     */
    function renderCluster(d) {
        var section = document.getElementById('ms-cluster');
        var c = d.cluster;
        if (!section) {
            return;
        }
        if (!c || !c.enabled) {
            section.hidden = true;
            if (state.charts.cluster) {
                state.charts.cluster.destroy();
                delete state.charts.cluster;
                delete state.signatures.cluster;
            }
            return;
        }
        section.hidden = false;
        var nodes = c.nodes || [];
        text('ms-cl-local', '(this node: ' + c.localNode + ', ' + nodes.length
            + (nodes.length === 1 ? ' member)' : ' members)'));
        clusterNodes(nodes);
        text('ms-cl-sent', fmt(c.relaysSentPerSec));
        text('ms-cl-deliveries', fmt(c.relayDeliveriesPerSec));
        text('ms-cl-bytes', bytesRate(c.relayBytesPerSec));
        text('ms-cl-received', fmt(c.relaysReceivedPerSec));
        text('ms-cl-latency', triple([c.relayLatencyP50Ms, c.relayLatencyP99Ms, c.relayLatencyMaxMs]));
        text('ms-cl-forwards', fmt(c.forwardsPerSec));
        text('ms-cl-repl', fmt(c.replicationWritesPerSec));
        text('ms-cl-repl-time', triple([c.replicationP99Ms, c.replicationMaxMs]));
        text('ms-cl-late', whole(c.replicationLate));
        text('ms-cl-handoffs', whole(c.handoffs));
        text('ms-cl-failovers', whole(c.failovers));
        text('ms-cl-last-failover', c.lastFailoverMs === null || c.lastFailoverMs === undefined
            ? 'none yet' : fmt(c.lastFailoverMs, ' ms'));
        text('ms-cl-gaps', whole(c.linkGaps));
        text('ms-cl-state-reads', whole(c.stateReadFailures) + ' (' + whole(c.stateReadGivenUp) + ')');
        text('ms-cl-resent', whole(c.resent) + ' (' + whole(c.resentDuplicates) + '; re-delivered '
            + whole(c.redelivered) + ')');

        draw('cluster', 'ms-chart-cluster', [
            line('relays sent/s', 0),
            line('relays received/s', 4),
            line('forwards/s', 5),
            line('replication writes/s', 2),
            line('relay latency p99 ms', 1, { scale: 'ms', dash: [4, 3] })
        ], [d.t, column(d, 'clusterRelaysSentPerSec'), column(d, 'clusterRelaysReceivedPerSec'),
            column(d, 'clusterForwardsPerSec'), column(d, 'clusterReplicationWritesPerSec'),
            column(d, 'clusterRelayLatencyP99Ms')], function (opts) {
            opts.scales.ms = { auto: true };
            opts.axes = [{}, { size: 60, label: 'per second', labelSize: 16 },
                { scale: 'ms', side: 1, size: 60, label: 'ms', labelSize: 16, grid: { show: false } }];
        });
    }

    /**
     * The members by name, rooms each owns and the build each runs (a rolling upgrade shows two); this node's row is
     * marked (text only, like every table here).
     */
    function clusterNodes(nodes) {
        var body = document.querySelector('#ms-cl-nodes tbody');
        while (body.firstChild) {
            body.removeChild(body.firstChild);
        }
        nodes.forEach(function (n) {
            var tr = document.createElement('tr');
            if (n.local) {
                tr.className = 'ms-cl-this';
            }
            var name = document.createElement('td');
            name.textContent = n.local ? n.node + ' (this node)' : n.node;
            var rooms = document.createElement('td');
            rooms.textContent = whole(n.rooms);
            var version = document.createElement('td');
            version.textContent = n.version || '–';
            tr.appendChild(name);
            tr.appendChild(rooms);
            tr.appendChild(version);
            body.appendChild(tr);
        });
    }

    /** Replaces a table body's rows; cells are filled with textContent only. */
    function table(id, rows, emptyText) {
        var body = document.querySelector('#' + id + ' tbody');
        if (!body) {
            return;
        }
        while (body.firstChild) {
            body.removeChild(body.firstChild);
        }
        if (rows.length === 0) {
            var empty = document.createElement('tr');
            var cell = document.createElement('td');
            cell.colSpan = 4;
            cell.className = 'ms-empty';
            cell.textContent = emptyText || 'none yet';
            empty.appendChild(cell);
            body.appendChild(empty);
            return;
        }
        rows.forEach(function (cells) {
            var tr = document.createElement('tr');
            cells.forEach(function (value) {
                var td = document.createElement('td');
                td.textContent = value;
                tr.appendChild(td);
            });
            body.appendChild(tr);
        });
    }

    function refresh() {
        var url = dataUrl + (dataUrl.indexOf('?') < 0 ? '?' : '&') + 'range=' + range;
        return fetch(url, { credentials: 'same-origin', cache: 'no-store' })
            .then(function (r) {
                if (!r.ok) {
                    throw new Error('HTTP ' + r.status);
                }
                rememberCsrf(r);
                return r.json();
            })
            .then(function (d) {
                render(d);
                schedule(d.sampleIntervalMs);
            })
            .catch(function (e) {
                state.errors.push(String(e));
                root.setAttribute('data-state', 'error');
                text('ms-status', 'could not load data: ' + e.message);
                schedule(10000);
            });
    }

    // Openfire issues a fresh CSRF token on every request to a plugin servlet, so the token written into the page is
    // stale after the first data request; the data servlet sends the current one in this header.
    function rememberCsrf(response) {
        var token = response.headers.get('X-Mucscale-Csrf');
        var input = form ? form.querySelector('input[name="csrf"]') : null;
        if (token && input) {
            input.value = token;
        }
    }

    function schedule(ms) {
        if (timer) {
            clearTimeout(timer);
        }
        timer = setTimeout(refresh, Math.max(2000, Math.min(60000, ms || 5000)));
    }

    Array.prototype.forEach.call(document.querySelectorAll('#ms-actions [data-range]'), function (b) {
        b.addEventListener('click', function () {
            range = parseInt(b.getAttribute('data-range'), 10) || 900;
            Array.prototype.forEach.call(document.querySelectorAll('#ms-actions [data-range]'), function (o) {
                o.classList.toggle('ms-active', o === b);
            });
            refresh();
        });
    });

    if (form) {
        form.addEventListener('submit', function (ev) {
            ev.preventDefault();
            fetch(form.getAttribute('action'), {
                method: 'POST',
                credentials: 'same-origin',
                body: new URLSearchParams(new FormData(form))
            }).then(function (r) {
                rememberCsrf(r);
                text('ms-status', r.ok ? 'probe sent' : 'action refused: HTTP ' + r.status);
                if (r.ok) {
                    setTimeout(refresh, 500);
                }
            }).catch(function (e) {
                text('ms-status', 'action failed: ' + e.message);
            });
        });
    }

    window.addEventListener('resize', function () {
        Object.keys(state.charts).forEach(function (k) {
            var c = state.charts[k];
            c.setSize({ width: width(c.root.parentNode), height: 220 });
        });
    });

    refresh();
})();

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""fleet-status.html: the fleet status document (_fleet_status.document) as one self-contained
page. No external script, style, font or image; the page carries its own Content-Security-Policy
that allows nothing but its one inline style and one inline script, by their SHA-256 hashes, so it
works opened from disk and under any strict policy that allows the same hashes. Sorting and
filtering are the script's; without it the page still lists every device, problems first, and each
device's detail (a details element).

The page is rendered by a Jinja2 environment of its own with autoescape on: every text of a device
or an artifact is escaped as HTML; Ansible never templates any of it.
"""

from __future__ import annotations

import base64
import hashlib

STYLE = """
:root{color-scheme:light dark;--bad:#b3261e;--warn:#8a5a00;--ok:#1e6b33;--muted:#666}
body{font:14px/1.4 system-ui,sans-serif;margin:1rem}
h1{font-size:1.3rem;margin:0 0 .3rem}
.summary span{margin-right:1rem}
form{display:flex;flex-wrap:wrap;gap:.5rem 1rem;margin:.6rem 0}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #8884;padding:.3rem .4rem;text-align:left;vertical-align:top}
th button{font:inherit;font-weight:bold;background:none;border:0;padding:0;cursor:pointer;color:inherit}
th[aria-sort=ascending] button::after{content:" \\25B2"}
th[aria-sort=descending] button::after{content:" \\25BC"}
tr.unreachable td:first-child,tr.critical td:first-child{border-left:4px solid var(--bad)}
tr.warning td:first-child{border-left:4px solid var(--warn)}
tr.ok td:first-child{border-left:4px solid var(--ok)}
.state{font-weight:bold;text-transform:uppercase;font-size:.8rem}
.unreachable .state,.critical .state,.bad{color:var(--bad)}
.warning .state,.warn{color:var(--warn)}
.ok .state{color:var(--ok)}
.muted{color:var(--muted)}
.name{white-space:nowrap}
details ul{margin:.2rem 0;padding-left:1.2rem}
[hidden]{display:none!important}
@media (max-width:700px){
 thead{display:none}
 table,tbody,tr,td{display:block;width:auto}
 tr{border:1px solid #8886;margin:.5rem 0;padding:.2rem}
 td{border:0;padding:.15rem .3rem;overflow-wrap:anywhere}
 td::before{content:attr(data-label) ": ";font-weight:bold}
}
@media print{
 form,th button::after{display:none}
 body{margin:0;font-size:8pt}
 th,td{padding:.1rem .2rem;overflow-wrap:anywhere}
 tbody tr[hidden]{display:table-row!important}
 tr{break-inside:avoid}
 details::details-content{content-visibility:visible;display:block}
 summary{list-style:none}
}
"""

# Filters and sorting. The filter state is also read from and written to the address's fragment
# (#state=problem&type=fm_monitor&site=studio), so that a filtered view can be linked and opened.
SCRIPT = """
(function(){
"use strict";
var form=document.getElementById("filters"),body=document.getElementById("devices"),
rows=Array.prototype.slice.call(body.rows),shown=document.getElementById("shown");
function matches(row,f){
 if(f.type&&row.dataset.type!==f.type)return false;
 if(f.site&&(" "+row.dataset.groups+" ").indexOf(" "+f.site+" ")<0)return false;
 if(f.state==="problem"&&row.dataset.state==="ok")return false;
 if(f.state&&f.state!=="problem"&&row.dataset.state!==f.state)return false;
 if(f.q&&row.dataset.name.toLowerCase().indexOf(f.q.toLowerCase())<0)return false;
 return true;}
function current(){return{type:form.type.value,site:form.site.value,state:form.state.value,q:form.q.value};}
function apply(){
 var f=current(),n=0;
 rows.forEach(function(row){var ok=matches(row,f);row.hidden=!ok;if(ok)n++;});
 shown.textContent=n+" of "+rows.length+" devices shown";
 document.body.dataset.shown=String(n);
 var parts=[];Object.keys(f).forEach(function(k){if(f[k])parts.push(k+"="+encodeURIComponent(f[k]));});
 var hash=parts.length?"#"+parts.join("&"):"";
 if(location.hash!==hash&&history.replaceState)history.replaceState(null,"",hash||location.pathname+location.search);}
function fromHash(){
 location.hash.replace(/^#/,"").split("&").forEach(function(p){
  var kv=p.split("="),el=form.elements[kv[0]];
  if(el&&kv.length===2){el.value=decodeURIComponent(kv[1]);}});}
function sortBy(th){
 var key=th.dataset.key,num=th.dataset.num==="1",dir=th.getAttribute("aria-sort")==="ascending"?-1:1;
 Array.prototype.forEach.call(th.parentNode.cells,function(c){c.removeAttribute("aria-sort");});
 th.setAttribute("aria-sort",dir===1?"ascending":"descending");
 rows.sort(function(a,b){
  var x=a.dataset[key],y=b.dataset[key];
  var c=num?(parseFloat(x)-parseFloat(y)):x.localeCompare(y);
  return (c||a.dataset.rank-b.dataset.rank)*dir;});
 rows.forEach(function(row){body.appendChild(row);});}
Array.prototype.forEach.call(document.querySelectorAll("th[data-key] button"),function(b){
 b.addEventListener("click",function(){sortBy(b.parentNode);});});
form.addEventListener("input",apply);form.addEventListener("change",apply);
form.addEventListener("submit",function(e){e.preventDefault();apply();});
window.addEventListener("hashchange",function(){fromHash();apply();});
form.hidden=false;fromHash();apply();document.body.dataset.ready="1";
})();
"""

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{{ csp }}">
<meta name="referrer" content="no-referrer">
<title>Fleet status {{ doc.generated_at }}</title>
<style>{{ style | safe }}</style>
</head>
<body>
<h1>Fleet status</h1>
<p class="summary"><span>{{ doc.counts.devices }} devices</span>
{%- for state in states %}<span class="{{ state }}">{{ doc.counts[state] }} {{ state }}</span>{% endfor -%}
<span class="muted">generated {{ doc.generated_at }}</span></p>
<form id="filters" hidden>
<label>State <select name="state"><option value="">all</option><option value="problem">with a problem</option>
{%- for state in states %}<option value="{{ state }}">{{ state }}</option>{% endfor %}</select></label>
<label>Type <select name="type"><option value="">all</option>
{%- for kind in types %}<option value="{{ kind }}">{{ type_views.get(kind, {}).get('label', kind) }}</option>{% endfor %}</select></label>
<label>Site <select name="site"><option value="">all</option>
{%- for group in groups %}<option value="{{ group }}">{{ group }}</option>{% endfor %}</select></label>
<label>Name <input name="q" type="search" size="12"></label>
<output id="shown" aria-live="polite"></output>
</form>
<table>
<thead><tr>
{%- for key, title, numeric in columns %}<th scope="col" data-key="{{ key }}"{% if numeric %} data-num="1"{% endif %}>
{{- '' }}<button type="button">{{ title }}</button></th>{% endfor -%}
</tr></thead>
<tbody id="devices">
{%- for dev in doc.devices %}
<tr class="{{ dev.state }}" id="device-{{ loop.index }}" data-rank="{{ loop.index }}" data-state="{{ dev.state }}" data-type="{{ dev.type }}"
 data-groups="{{ dev.groups | join(' ') }}" data-name="{{ dev.name }}" data-model="{{ dev.model }}" data-firmware="{{ dev.firmware_version }}"
 data-reachable="{{ 1 if dev.reachable else 0 }}" data-items="{{ dev.working }}" data-p1="{{ dev.priority1_errors }}"
 data-alarms="{{ dev.alarms_active }}" data-reboot="{{ 1 if dev.reboot_pending else 0 }}" data-drift="{{ dev.audit.status }}"
 data-validation="{{ dev.validation.status if dev.validation else '' }}" data-read="{{ dev.read_at }}">
<td data-label="Device"><details><summary><span class="state">{{ dev.state }}</span> <span class="name">{{ dev.name }}</span></summary>
{%- if dev.problems %}<ul class="problems">{% for p in dev.problems %}<li>{{ p }}</li>{% endfor %}</ul>{% endif %}
<p class="muted">groups: {{ dev.groups | join(', ') or 'none' }}</p>
{%- if dev['items'] %}<ul class="items">{% for item in dev['items'] %}<li class="{{ '' if item.working or not item.in_use else 'bad' }}">
{{- item.kind }} {{ item.name }}: {{ item.state }}
{%- if item.kind == 'input' %}{% if item.bitrate %}, {{ item.bitrate }} bit/s{% endif %}
{%- else %}{% if item.frequency %}, {{ item.frequency }} kHz{% endif %}
{%- if item.rssi is not none %}, RSSI {{ item.rssi }}{% endif %}{% endif %}
{%- if item.priority1_errors %}; priority 1: {{ item.priority1_errors | join(', ') }}{% endif %}
{%- if item.alarms %}; alarms: {{ item.alarms | join(', ') }}{% endif %}</li>{% endfor %}</ul>{% endif %}
{%- if dev.validation and dev.validation.messages %}<ul class="validation">{% for m in dev.validation.messages %}<li>{{ m }}</li>{% endfor %}</ul>{% endif %}
</details></td>
<td data-label="Type">{{ type_views.get(dev.type, {}).get('label', dev.type) }}</td>
<td data-label="Model">{{ dev.model }}</td>
<td data-label="Firmware"{% if dev.firmware_outdated %} class="warn"{% endif %}>{{ dev.firmware_version }}
{%- if dev.firmware_outdated %} (older than {{ doc.newest_firmware.get(dev.type, '') }}){% endif %}</td>
<td data-label="Reachable"{% if not dev.reachable %} class="bad"{% endif %}>{{ 'yes' if dev.reachable else 'no' }}</td>
{%- if dev.reachable %}
{%- set view = type_views.get(dev.type, {}) %}
<td data-label="{{ view.get('items_label', 'Items') }}"{% if dev.working < dev.in_use %} class="bad"{% endif %}>
{{- view.summary(dev) if view.summary else '' }}</td>
<td data-label="Priority-1 errors"{% if dev.priority1_errors %} class="bad"{% endif %}>{{ dev.priority1_errors if view.priority1 else '' }}</td>
<td data-label="Alarms"{% if dev.alarms_active %} class="warn"{% endif %}>{{ dev.alarms_active }}</td>
<td data-label="Reboot pending"{% if dev.reboot_pending %} class="warn"{% endif %}>{{ 'yes' if dev.reboot_pending else 'no' }}</td>
{%- else %}
<td data-label="Items"></td><td data-label="Priority-1 errors"></td><td data-label="Alarms"></td><td data-label="Reboot pending"></td>
{%- endif %}
<td data-label="Drift"{% if dev.audit.status in ('drift', 'failed') %} class="warn"{% endif %}>{{ dev.audit.status | replace('_', ' ') }}
{%- if dev.audit.sections %}: {{ dev.audit.sections | join(', ') }}{% endif %}</td>
<td data-label="Validation"{% if dev.validation and dev.validation.status == 'failed' %} class="bad"{% endif %}>
{{- dev.validation.status if dev.validation else 'none' }}</td>
<td data-label="Read at">{{ dev.read_at }}</td>
</tr>
{%- endfor %}
</tbody>
</table>
<script>{{ script | safe }}</script>
</body>
</html>
"""

COLUMNS = (
    ("name", "Device", False), ("type", "Type", False), ("model", "Model", False), ("firmware", "Firmware", False),
    ("reachable", "Reachable", True), ("items", "Inputs / tuners", True), ("p1", "Priority-1 errors", True),
    ("alarms", "Alarms", True), ("reboot", "Reboot pending", True), ("drift", "Drift", False),
    ("validation", "Validation", False), ("read", "Read at", False),
)


def _hash(text):
    return "'sha256-%s'" % base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


#: the page's own policy: nothing from anywhere, apart from its inline style and script by hash
CSP = ("default-src 'none'; style-src %s; script-src %s; img-src 'none'; base-uri 'none'; form-action 'none'"
       % (_hash(STYLE), _hash(SCRIPT)))


def page(doc, type_views, states):
    """fleet-status.html of the document ``doc``; ``type_views``: per device type its
    ``label``, ``items_label``, ``priority1`` (whether its items have priority-1 errors) and
    ``summary`` (a device entry's items summed up as text)."""
    from jinja2 import Environment  # controller side

    env = Environment(autoescape=True, trim_blocks=False)
    groups = sorted(set(g for dev in doc.get("devices") or [] for g in dev.get("groups") or []))
    types = sorted(set(dev["type"] for dev in doc.get("devices") or []))
    return env.from_string(TEMPLATE).render(
        doc=doc, csp=CSP, style=STYLE, script=SCRIPT, states=states, groups=groups, types=types,
        type_views=type_views, columns=COLUMNS)

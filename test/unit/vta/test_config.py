"""Presets, vta_config.json files and what is derived from them."""

from __future__ import annotations

import json

import pytest

from tessel.dialects.vta.config import ConfigError, load_config, preset


def test_pynq_defaults_match_vta_config_json():
    c = preset("pynq")
    assert (c.inp_depth, c.wgt_depth, c.acc_depth, c.uop_depth) == (2048, 1024, 2048, 8192)
    assert c.macs_per_cycle == 256 and c.bus_bytes == 8
    assert c.peak_gops == pytest.approx(51.2)
    assert preset("pynq200").peak_gops == pytest.approx(102.4)
    assert preset("ultra96").bus_bytes == 16


def test_load_config(tmp_path):
    path = tmp_path / "vta_config.json"
    path.write_text(json.dumps({"TARGET": "pynq", "LOG_WGT_BUFF_SIZE": 15, "CLOCK_MHZ": 200}))
    c = load_config(path)
    assert c.wgt_depth == 128 and c.clock_mhz == 200 and c.name == "vta_config"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"LOG_BOGUS": 1}', "unknown key 'LOG_BOGUS'"),
        ('{"LOG_BATCH": 1}', "only batch 1"),
        ('{"LOG_INP_WIDTH": 4}', "only int8 inputs"),
        ('{"TARGET": "zcu9000"}', "unknown VTA preset 'zcu9000'"),
        ('{"LOG_BLOCK": "4"}', "must be a non-negative number"),
        ("[1, 2]", "a VTA config is a JSON object"),
        ("{", "cannot read the VTA config"),
    ],
)
def test_bad_configs_are_one_clear_error(tmp_path, text, message):
    path = tmp_path / "c.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(path)

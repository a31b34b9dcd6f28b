"""Planning libraries of the img passes: the row plan (stages, footprints, line buffers) and the frame program (steps between whole-frame ops and gates)."""

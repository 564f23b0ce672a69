#pragma once
// Everything a C++ user of kerntime needs.

#include "kerntime/counters.hpp"
#include "kerntime/cuda.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/measure.hpp"
#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"
#include "kerntime/session.hpp"
#include "kerntime/statistics.hpp"
#include "kerntime/telemetry.hpp"

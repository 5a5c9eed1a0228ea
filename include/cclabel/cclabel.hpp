#pragma once
/// @file cclabel.hpp
/// @brief Everything of the public host API.
#include "cclabel/adjacency.hpp"
#include "cclabel/batch.hpp"
#include "cclabel/error.hpp"
#include "cclabel/image_view.hpp"
#include "cclabel/label.hpp"
#include "cclabel/options.hpp"
#include "cclabel/segment.hpp"
#include "cclabel/stats.hpp"
#include "cclabel/tiles.hpp"
#include "cclabel/verify.hpp"
#include "cclabel/version.hpp"
#include "cclabel/volume.hpp"
#include "cclabel/volume_stats.hpp"

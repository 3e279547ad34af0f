// ntp/train/settings.h: what a resumed run must share with the run that wrote
// its checkpoint. The settings are a text of `name=value` lines, stored in the
// checkpoint: every option that shapes the trained model except the number
// of epochs (which a resumed run may extend) and the threads, and a hash of
// the training data. The names (dim, lr, k-rules, ...) are part of the
// checkpoint format: they stay as written, so that older checkpoints resume.
#pragma once

#include "ntp/train/options.h"
#include "ntp/train/training_data.h"

#include <string>

namespace ntp {

std::string training_settings(const TrainingData& data, const ModelOptions& model, const TrainOptions& train,
                              const RunOptions& run);

// The value of setting `name` in `settings` ("" when it is not there).
std::string setting_value(const std::string& settings, const std::string& name);

// Throws std::invalid_argument naming every setting of `now` that differs
// from `saved`, the settings of the checkpoint at `checkpoint`.
void check_same_settings(const std::string& now, const std::string& saved, const std::string& checkpoint);

}  // namespace ntp

extension ProfileSetting {
    /// Firebase: the project ID.
    package static let project = ProfileSetting(
        "project", placeholder: "ID", kind: .text(nonEmpty: true), described: "a project",
        help: "Firebase project ID (instead of --issuer/--audience).")
    /// Firebase App Check: the project's number.
    package static let projectNumber = ProfileSetting(
        "project-number", placeholder: "N", kind: .text(nonEmpty: true), described: "a project number",
        help: "Firebase project number (firebase-app-check).")
}

extension VerificationPolicy.ProfileSettings {
    /// The Firebase project (its ID).
    public var project: String? {
        get { text(.project) }
        set { set(.project, text: newValue) }
    }
    /// The Firebase project's number (App Check).
    public var projectNumber: String? {
        get { text(.projectNumber) }
        set { set(.projectNumber, text: newValue) }
    }
}
